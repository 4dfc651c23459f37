import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bridgeSource = fileURLToPath(new URL('./bridge.ts', import.meta.url));

export interface SpawnedBridge {
  url: string;
  /** POSTs `body` as JSON from the console origin and answers the status and JSON body. */
  post(
    path: string,
    body: unknown,
    origin?: string,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): void;
}

/** Starts the bridge from its source (tsx) on a free port over the SoftHSM2 token of `conf`. */
export async function spawnBridge(
  conf: string,
  origin: string,
  extraArgs: string[] = [],
): Promise<SpawnedBridge> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', bridgeSource, '--port', '0', '--allow-origin', origin, ...extraArgs],
    { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', () => reject(new Error(`bridge exited: ${out}`)));
  });
  return {
    url,
    async post(path, body, from = origin) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: from },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    stop: () => void child.kill('SIGTERM'),
  };
}
