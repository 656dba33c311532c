// Starts a real `loom serve` on a free loopback port for the tests ($LOOM_BIN, default
// .build/debug/loom from the repository root) and stops it afterwards.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** @returns {Promise<{url: string, stop: () => Promise<void>, log: () => string}>} */
export async function startLoom(extraArgs = []) {
  const bin = process.env.LOOM_BIN ?? path.join(repoRoot, ".build/debug/loom");
  const child = spawn(bin, ["serve", "--host", "127.0.0.1", "--port", "0", ...extraArgs], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`loom serve did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk;
      const line = output.split("\n").find((l) => l.includes("loom listening"));
      const m = line && /\bport="?(\d+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`loom serve exited (${code}):\n${output}`)); });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    stop: () => new Promise((resolve) => {
      child.removeAllListeners("exit");
      child.on("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5000).unref();
    }),
  };
}
