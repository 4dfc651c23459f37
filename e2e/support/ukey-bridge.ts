import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bridgeJs = join(root, 'tools/ukey-bridge/dist/bridge.js');

export interface RunningBridge {
  url: string;
  log: () => string;
  stop(): Promise<void>;
}

/**
 * The built UKEY bridge (`node tools/ukey-bridge/dist/bridge.js --port 0`), opening the
 * SoftHSM2 token of `softhsmConf`, answering only the console at `consoleOrigin`; `extraArgs`
 * go after those (e.g. `--sm2-in-bridge`, which SM2 on SoftHSM2 needs).
 */
export async function startBridge(
  softhsmConf: string,
  consoleOrigin: string,
  extraArgs: string[] = [],
): Promise<RunningBridge> {
  if (!existsSync(bridgeJs)) throw new Error('Build first: npm run build (tools/ukey-bridge/dist is needed)');
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [bridgeJs, '--port', '0', '--allow-origin', consoleOrigin, ...extraArgs],
    {
      cwd: root,
      env: { ...process.env, SOFTHSM2_CONF: softhsmConf },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 15_000;
  let url: string | undefined;
  while (!url) {
    url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url) break;
    if (child.exitCode !== null) throw new Error(`The bridge exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`The bridge did not start in 15 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  };
}
