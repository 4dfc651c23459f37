/**
 * Two builds of the server, compared in one run: prints figures, never fails a test run.
 *
 *   BENCH_AB_BASE=/path/to/other/checkout npm run bench:ab -w bench
 *
 * The other checkout must be built (`npm run build` there). Rounds alternate this build (A) and
 * the other one (B) through `run.ts`, each on a fresh server, so each pair of runs shares the
 * machine's load of the moment; the comparison is the median over the rounds of A/B, for the
 * rate and for the server's CPU time per request (which load disturbs less).
 *
 *   BENCH_AB_BASE     the other checkout (required)
 *   BENCH_AB_ROUNDS   rounds (default 5)
 *   BENCH_AB_ONLY     scenarios (default "encrypt,no-op"), as BENCH_ONLY of run.ts
 *   BENCH_SECONDS, BENCH_ENGINES (default sqlite): passed to run.ts
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './support.js';

const base = process.env.BENCH_AB_BASE;
if (!base || !existsSync(join(base, 'apps/server/dist/main.js')))
  throw new Error('BENCH_AB_BASE must name a built checkout (apps/server/dist/main.js)');
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 5);
const ONLY = process.env.BENCH_AB_ONLY ?? 'encrypt,no-op';

interface Figure {
  rate: number;
  cpu: number | null;
}

/** One run of run.ts; its table rows by "engine | scenario | clients". */
function runOnce(main: string | null): Map<string, Figure> {
  const result = spawnSync('node', ['--import', 'tsx', join(root, 'bench/run.ts')], {
    cwd: join(root, 'bench'),
    encoding: 'utf8',
    env: {
      ...process.env,
      BENCH_ONLY: ONLY,
      BENCH_ENGINES: process.env.BENCH_ENGINES ?? 'sqlite',
      ...(main ? { BENCH_SERVER_MAIN: main } : {}),
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`run.ts failed: ${result.stderr}`);
  const figures = new Map<string, Figure>();
  for (const line of result.stdout.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | engine | scenario | clients | req/s | p50 | p99 | errors | cpu |
    if (cells.length !== 10 || !/^\d+$/.test(cells[3]!) || !/^\d+$/.test(cells[4]!)) continue;
    const cpu = Number(cells[8]);
    figures.set(`${cells[1]} | ${cells[2]} | ${cells[3]}`, {
      rate: Number(cells[4]),
      cpu: Number.isFinite(cpu) ? cpu : null,
    });
  }
  return figures;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const rounds: { a: Map<string, Figure>; b: Map<string, Figure>; load: string }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  // Which goes first alternates too, so neither always runs on the warmer machine.
  const first = i % 2 === 0 ? 'a' : 'b';
  const one = runOnce(first === 'a' ? null : join(base, 'apps/server/dist/main.js'));
  const two = runOnce(first === 'a' ? join(base, 'apps/server/dist/main.js') : null);
  const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ')[0] ?? '?';
  rounds.push(first === 'a' ? { a: one, b: two, load } : { a: two, b: one, load });
  console.error(`round ${i + 1}/${ROUNDS} done (load ${load})`);
}

const keys = [...rounds[0]!.a.keys()].filter((k) => rounds.every((r) => r.a.has(k) && r.b.has(k)));
const lines = [
  `KSP A/B — ${new Date().toISOString()} — A: this checkout, B: ${base}; ${ROUNDS} alternating rounds`,
  '',
  "| engine | scenario | clients | A req/s (each round) | B req/s (each round) | median A/B rate | median A/B rate, each against its run's bare Fastify | median A/B CPU µs/req |",
  '|---|---|---|---|---|---|---|---|',
];
/** The bare Fastify route of the same run and clients: the same code in A and B, so it shows the load. */
const bareOf = (figures: Map<string, Figure>, key: string) => {
  const [engine, , clients] = key.split(' | ');
  return figures.get(`${engine} | bare Fastify (same envelope) | ${clients}`)?.rate ?? null;
};
for (const key of keys) {
  const rates = rounds.map((r) => r.a.get(key)!.rate / r.b.get(key)!.rate);
  const cpus = rounds
    .map((r) => [r.a.get(key)!.cpu, r.b.get(key)!.cpu] as const)
    .filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null)
    .map(([a, b]) => a / b);
  const normalized = rounds
    .map((r) => {
      const [bareA, bareB] = [bareOf(r.a, key), bareOf(r.b, key)];
      return bareA && bareB ? r.a.get(key)!.rate / bareA / (r.b.get(key)!.rate / bareB) : null;
    })
    .filter((x): x is number => x !== null);
  const pct = (xs: number[]) => (xs.length ? `${(median(xs) * 100).toFixed(1)} %` : '-');
  lines.push(
    `| ${key} | ${rounds.map((r) => r.a.get(key)!.rate).join(', ')} | ${rounds.map((r) => r.b.get(key)!.rate).join(', ')} | ${pct(rates)} | ${pct(normalized)} | ${pct(cpus)} |`,
  );
}
lines.push('', `Load average after each round: ${rounds.map((r) => r.load).join(', ')}`);
console.log(lines.join('\n'));
