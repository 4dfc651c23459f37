/**
 * The scheduler under load (issue 13, "Performance"): rotating `BENCH_ROTATE_KEYS` (10,000)
 * keys in one job while AES-256-GCM encrypt is loaded at 16 clients. For each engine it
 * starts the built server, makes the keys through the API, measures encrypt alone, then runs
 * the rotation task ("run now") with the same load until the run ends, and prints encrypt's
 * p99 in both, the rotation's duration and keys per second, against the target (p99 ≤ 20 ms
 * while the rotation runs). Prints figures; never fails.
 *
 *   npm run build && npm run bench:scheduler -w bench
 *   BENCH_ENGINES=sqlite BENCH_ROTATE_KEYS=2000 npm run bench:scheduler -w bench
 */
import autocannon from 'autocannon';
import { api as contract } from '@ksp/contracts';
import {
  aesKey,
  api,
  ENGINES,
  initialize,
  restEncryptRequest,
  serverData,
  startServer,
  type Engine,
} from './support.js';

const KEYS = Number(process.env.BENCH_ROTATE_KEYS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = 16;
const TARGET_P99_MS = 20;

interface Load {
  p50: number;
  p99: number;
  rate: number;
  errors: number;
}

function encryptLoad(base: string, token: string, keyId: string, seconds: number) {
  let instance: autocannon.Instance | null = null;
  const done = new Promise<Load>((resolve, reject) => {
    instance = autocannon(
      { ...restEncryptRequest(base, token, keyId), connections: CLIENTS, duration: seconds },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        resolve({
          p50: result.latency.p50,
          p99: result.latency.p99,
          rate: result.requests.average,
          errors: result.non2xx + result.errors + result.timeouts,
        });
      },
    );
  });
  // Assigned in the executor above, which runs at once.
  const started = instance as autocannon.Instance | null;
  return { done, stop: () => started?.stop() };
}

async function makeKeys(base: string, token: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < KEYS) {
      const i = next++;
      await aesKey(base, token, `rot-${i}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

async function runEngine(engine: Engine): Promise<string> {
  const data = await serverData(engine, 'ksp-bench-sched-');
  const server = await startServer(data.env);
  try {
    const token = await initialize(server.base);
    const hot = await aesKey(server.base, token, 'hot');
    const made = Date.now();
    await makeKeys(server.base, token);
    console.log(`${engine}: ${KEYS} keys made in ${((Date.now() - made) / 1000).toFixed(1)} s`);
    // Runs back their keys up first (the key-rotation backup), under the default system key.
    await api(
      server.base,
      contract.backupKey.create.path,
      { name: 'rotation backups', scope: 'system', is_default: true },
      token,
    );
    const task = await api<{ id: string }>(
      server.base,
      contract.scheduler.create.path,
      { name: 'bench rotation', cron: '0 3 1 1 *', query: { name_pattern: 'rot-*' } },
      token,
    );

    const alone = await encryptLoad(server.base, token, hot, SECONDS).done;

    // The same load for as long as the rotation runs (at most 10 minutes).
    const load = encryptLoad(server.base, token, hot, 600);
    const started = Date.now();
    await api(server.base, contract.scheduler.runNow.path, { id: task.id }, token);
    let run: { state: string; rotated: number; matched: number; error: string | null } | undefined;
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      const history = await fetch(
        `${server.base}${contract.scheduler.history.path}?id=${task.id}&page=1&page_size=1`,
        { headers: { token } },
      ).then((r) => r.json() as Promise<{ data: { data: NonNullable<typeof run>[] } }>);
      run = history.data.data[0];
      if (run && (run.state === 'success' || run.state === 'failure')) break;
    }
    const seconds = (Date.now() - started) / 1000;
    load.stop();
    const during = await load.done;
    const verdict = during.p99 <= TARGET_P99_MS ? 'meets' : 'MISSES';
    return [
      `| ${engine} | alone | ${alone.rate.toFixed(0)} | ${alone.p50} | ${alone.p99} | ${alone.errors} | | |`,
      `| ${engine} | rotating | ${during.rate.toFixed(0)} | ${during.p50} | ${during.p99} | ${during.errors} | ${run.rotated}/${run.matched} (${run.state}) in ${seconds.toFixed(1)} s, ${(run.rotated / seconds).toFixed(0)} keys/s | p99 ≤ ${TARGET_P99_MS} ms: ${verdict} |`,
    ].join('\n');
  } finally {
    await server.stop();
    await data.remove();
  }
}

const rows: string[] = [];
for (const engine of ENGINES) {
  rows.push(await runEngine(engine));
  console.log(rows.at(-1));
}
console.log(
  `\nScheduler: rotating ${KEYS} keys while AES-256-GCM encrypt (64 B) runs at ${CLIENTS} clients\n`,
);
console.log('| engine | encrypt | req/s | p50 ms | p99 ms | errors | rotation | target |');
console.log('|---|---|---|---|---|---|---|---|');
console.log(rows.join('\n'));
