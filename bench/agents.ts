/**
 * Agents at scale (issue 14, "Performance"): `BENCH_AGENTS` (1,000) simulated agents
 * heartbeating every `BENCH_HEARTBEAT_S` (10) seconds, `BENCH_WAITERS` (100) of them holding the
 * config channel open, against the built server. For each engine it prints:
 *
 * - the server's CPU share (of one core) while only the heartbeats run (target ≤ 10 %);
 * - the time from a configuration change to each waiting agent's answer, max and p99, over
 *   `BENCH_CHANGES` (5) changes (target: every agent within 2 s). The change is written to
 *   `client_config_epoch` from outside the server (as another node would), so this measures the
 *   cross-node path (the periodic epoch read), not the in-process fast path;
 * - AES-256-GCM encrypt throughput at 16 clients alone, then with the heartbeats and the
 *   waiters running, `BENCH_ROUNDS` (3) pairs in turn, and the median of their ratios
 *   (target 0.95–1.05).
 *
 * Prints figures; never fails.
 *
 *   npm run build -w packages/contracts && npm run build -w apps/server && npm run bench:agents -w bench
 *   BENCH_ENGINES=sqlite BENCH_AGENTS=200 npm run bench:agents -w bench
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Agent as HttpAgent, request } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import pg from 'pg';
import { api as contract, signedText } from '@ksp/contracts';
import {
  aesKey,
  api,
  ENGINES,
  initialize,
  restEncryptRequest,
  startServer,
  throwawayPostgres,
  type Engine,
} from './support.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 1000);
const HEARTBEAT_S = Number(process.env.BENCH_HEARTBEAT_S ?? 10);
const WAITERS = Math.min(Number(process.env.BENCH_WAITERS ?? 100), AGENTS);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** Alone / under-load pairs of encrypt runs; the median ratio is the figure. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LISTENER = process.env.BENCH_AGENT_LISTENER !== 'off';
/**
 * A control: the loaded encrypt runs without the agents, beside a process that burns this share
 * of one core (percent) instead; set it to the agent load's CPU (the server's heartbeats, the
 * simulated agents, the database) to see what any background work of that cost takes from
 * encrypt on this machine.
 */
const BURN = Number(process.env.BENCH_CONTROL_BURN ?? 0);

/** A process busy `percent` of one core, in 10 ms periods, until killed. */
function burner(percent: number): ChildProcess {
  const busy = percent / 10;
  return spawn(
    process.execPath,
    [
      '-e',
      `const tick = () => { const end = performance.now() + ${busy}; while (performance.now() < end); setTimeout(tick, ${10 - busy}); }; tick();`,
    ],
    { stdio: 'ignore' },
  );
}

interface Agent {
  id: string;
  last: number;
  /** Its own keep-alive connection, as a real agent keeps one (the listener keeps idle ones 65 s). */
  http: HttpAgent;
}

/** One key and CSR for every simulated agent: each enrolment still makes its own client and certificate. */
function agentKey(): { key: KeyObject; csr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-bench-agent-'));
  try {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(join(dir, 'k.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const csr = execFileSync(
      'openssl',
      ['req', '-new', '-key', join(dir, 'k.pem'), '-subj', '/CN=bench-agent'],
      {
        encoding: 'utf8',
      },
    );
    return { key: pair.privateKey, csr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function signedBody(agent: Agent, key: KeyObject, payload: object, at = Date.now()): string {
  const text = JSON.stringify(payload);
  agent.last = Math.max(at, agent.last + 1);
  const digest = createHash('sha256').update(text).digest('hex');
  const signature = sign('sha256', Buffer.from(signedText(agent.id, agent.last, digest)), key).toString(
    'base64',
  );
  return JSON.stringify({ client_id: agent.id, timestamp: agent.last, payload: text, signature });
}

/**
 * One POST on the simulated agent's own keep-alive connection (node:http: `fetch` cost the
 * bench process about a millisecond of CPU a call, taken from the cores the server shares).
 */
function postRaw<T>(
  base: string,
  path: string,
  body: string,
  via?: Agent,
): Promise<{ code: number; msg: string; data: T }> {
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      {
        method: 'POST',
        agent: via?.http,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(
              JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code: number; msg: string; data: T },
            );
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function encryptRate(base: string, token: string, keyId: string, seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        ...restEncryptRequest(base, token, keyId),
        connections: 16,
        // Its own thread: the simulated agents' loops share this process's event loop, and
        // would otherwise slow the load generator rather than the server.
        workers: 1,
        duration: seconds,
      },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        // Say why a run answered little: errors, timeouts and non-2xx answers.
        if (result.errors || result.timeouts || result.non2xx)
          console.log(
            `encrypt: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
          );
        resolve(result.requests.average);
      },
    );
  });
}

/** CPU ms per thread name of a process (Linux /proc), to say where the time goes; `<name> sys` the kernel's part. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
      out.set(`${name} sys`, (out.get(`${name} sys`) ?? 0) + Number(fields[12]) * 10);
    } catch {
      // a thread that ended
    }
  }
  return out;
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

async function runEngine(engine: Engine): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ksp-bench-agents-'));
  const pgDb = engine === 'postgres' ? await throwawayPostgres() : null;
  const server = await startServer(
    {
      KSP_DATA_DIR: dataDir,
      // Enrolment is limited per address like a sign-in: every simulated agent enrols from here.
      KSP_LOGIN_RATE_PER_ADDRESS: '1000000',
      KSP_LOGIN_RATE_PER_USER: '1000000',
      // The agent listener (docs/api.md "Agent listener"): heartbeats off the API's event
      // loop. BENCH_AGENT_LISTENER=off measures heartbeats on the API port instead.
      ...(LISTENER ? { KSP_AGENT_PORT: '0' } : {}),
      ...(pgDb ? { KSP_DATABASE_URL: pgDb.url } : {}),
    },
    process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [],
  );
  const bumpers: { bump(domain: string): Promise<void>; close(): Promise<void> } =
    engine === 'sqlite'
      ? (() => {
          const db = new Database(join(dataDir, 'ksp.sqlite'));
          db.pragma('busy_timeout = 5000');
          const stmt = db.prepare(
            `insert into client_config_epoch (domain_id, seq, updated_at) values (?, 1, ?)
             on conflict (domain_id) do update set seq = seq + 1, updated_at = excluded.updated_at`,
          );
          return {
            bump: (domain: string) => {
              stmt.run(domain, new Date().toISOString());
              return Promise.resolve();
            },
            close: () => {
              db.close();
              return Promise.resolve();
            },
          };
        })()
      : (() => {
          const client = new pg.Client({ connectionString: pgDb!.url });
          const connected = client.connect();
          return {
            bump: async (domain: string) => {
              await connected;
              await client.query(
                `insert into client_config_epoch (domain_id, seq, updated_at) values ($1, 1, $2)
                 on conflict (domain_id) do update set seq = client_config_epoch.seq + 1, updated_at = excluded.updated_at`,
                [domain, new Date().toISOString()],
              );
            },
            close: () => client.end(),
          };
        })();
  let stop = false;
  /** Waiters' loops of an older generation end at their next turn (they are restarted for the encrypt runs). */
  let generation = 0;
  const loops: Promise<void>[] = [];
  try {
    const token = await initialize(server.base);
    const hot = await aesKey(server.base, token, 'hot');
    const reg = await api<{ secret: string }>(
      server.base,
      contract.registrationToken.create.path,
      { name: 'bench', usage: 'kadp', capacity: 0 },
      token,
    );
    const { key, csr } = agentKey();
    const agents: Agent[] = [];
    let next = 0;
    let heartbeatPort = null as number | null;
    const enrolled = Date.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < AGENTS) {
          const i = next++;
          const a = await api<{ client_id: string; heartbeat_port: number | null }>(
            server.base,
            contract.client.enrol.path,
            {
              token: reg.secret,
              csr,
              name: `bench-${i}`,
              type: 'kadp',
            },
          );
          heartbeatPort = a.heartbeat_port;
          agents.push({ id: a.client_id, last: 0, http: new HttpAgent({ keepAlive: true, maxSockets: 1 }) });
        }
      }),
    );
    console.log(`${engine}: ${AGENTS} agents enrolled in ${((Date.now() - enrolled) / 1000).toFixed(1)} s`);
    // Where the agents heartbeat: the agent listener the enrolment named, else the API port.
    const heartbeatBase = heartbeatPort === null ? server.base : `http://127.0.0.1:${heartbeatPort}`;
    console.log(`${engine}: heartbeats to ${heartbeatPort === null ? 'the API port' : 'the agent listener'}`);

    // Heartbeats: each agent every HEARTBEAT_S, spread evenly, on a schedule fixed from the
    // start and signed before it begins (each with its planned time as timestamp). Signing on
    // the fly cost the bench process CPU taken from the two cores the server shares; real
    // agents sign on their own hosts. The server still verifies every signature. Slots that
    // fall while heartbeats are paused (the encrypt runs "alone") are skipped.
    const beating = agents.slice(0, AGENTS - WAITERS);
    const waiting = agents.slice(AGENTS - WAITERS);
    const planned =
      HEARTBEAT_S + SECONDS + 2 + CHANGES * 6 + ROUNDS * (2 * SECONDS + 4) + 60; /* s, with a margin */
    const slotCount = Math.ceil(planned / HEARTBEAT_S) + 1;
    const startAt = Date.now() + 2000 + beating.length; // after the signing below
    const signing = Date.now();
    const schedules = beating.map((agent, i) =>
      Array.from({ length: slotCount }, (_, k) => {
        const at = Math.round(startAt + (i * HEARTBEAT_S * 1000) / beating.length + k * HEARTBEAT_S * 1000);
        return { at, body: signedBody(agent, key, {}, at) };
      }),
    );
    console.log(
      `${engine}: ${beating.length * slotCount} heartbeats signed ahead in ${((Date.now() - signing) / 1000).toFixed(1)} s`,
    );
    let heartbeats = 0;
    let refused = 0;
    let beatingOn = true;
    const beat = async (agent: Agent, slots: { at: number; body: string }[]) => {
      for (const slot of slots) {
        const wait = slot.at - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stop) return;
        if (!beatingOn) continue;
        const answer = await postRaw(heartbeatBase, contract.client.heartbeat.path, slot.body, agent).catch(
          () => ({ code: -1 }),
        );
        if (answer.code === 0) heartbeats++;
        else refused++;
      }
      if (!stop) console.log(`${engine}: agent ${agent.id} ran out of signed heartbeats`);
    };
    for (const [i, a] of beating.entries()) loops.push(beat(a, schedules[i]!));
    await new Promise((r) => setTimeout(r, startAt - Date.now() + HEARTBEAT_S * 1000));
    const cpu0 = server.cpuMs();
    const bench0 = process.cpuUsage();
    const threads0 = threadCpu(server.pid);
    const t0 = Date.now();
    const hb0 = heartbeats;
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpuShare = (server.cpuMs() - cpu0) / (Date.now() - t0);
    const byThread = [...threadCpu(server.pid)]
      .map(([name, ms]) => [name, ms - (threads0.get(name) ?? 0)] as const)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${((ms * 100) / (Date.now() - t0)).toFixed(1)} %`);
    console.log(`${engine}: server CPU by thread during heartbeats: ${byThread.join(', ')}`);
    const benchCpu = process.cpuUsage(bench0);
    // The simulated agents' own cost (signatures, HTTP clients): on this machine it is taken
    // from the same two cores as the server's.
    console.log(
      `${engine}: the simulated agents' CPU (this process): ${((benchCpu.user + benchCpu.system) / 10 / (Date.now() - t0)).toFixed(1)} % of one core`,
    );
    const hbRate = ((heartbeats - hb0) * 1000) / (Date.now() - t0);

    // Waiters: each holds the config call, calls again at once when answered.
    const domain = await (async () => {
      const first = await postRaw<{ config: { version: number } }>(
        server.base,
        contract.client.config.path,
        signedBody(waiting[0]!, key, { since_version: 0, wait_s: 0 }),
      );
      if (first.code !== 0) throw new Error(first.msg);
      // The domain of the agents is the root domain: read it through the epoch table after one bump.
      if (engine === 'sqlite') {
        const db = new Database(join(dataDir, 'ksp.sqlite'), { readonly: true });
        try {
          return (
            db.prepare('select domain_id from client where id = ?').get(waiting[0]!.id) as {
              domain_id: string;
            }
          ).domain_id;
        } finally {
          db.close();
        }
      }
      const c = new pg.Client({ connectionString: pgDb!.url });
      await c.connect();
      try {
        return (
          await c.query<{ domain_id: string }>('select domain_id from client where id = $1', [waiting[0]!.id])
        ).rows[0]!.domain_id;
      } finally {
        await c.end();
      }
    })();
    const versions = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    let current = 0;
    const wait = async (agent: Agent, g = generation) => {
      while (!stop && g === generation) {
        const answer = await postRaw<{ changed: boolean; config: { version: number } }>(
          server.base,
          contract.client.config.path,
          signedBody(agent, key, { since_version: versions.get(agent.id) ?? current, wait_s: 30 }),
        ).catch(() => undefined);
        if (!answer || answer.code !== 0) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        versions.set(agent.id, answer.data.config.version);
        if (answer.data.changed) answeredAt.set(agent.id, Date.now());
      }
    };
    current = (
      await postRaw<{ config: { version: number } }>(
        server.base,
        contract.client.config.path,
        signedBody(waiting[0]!, key, { since_version: 0, wait_s: 0 }),
      )
    ).data.config.version;
    for (const a of waiting) loops.push(wait(a));
    await new Promise((r) => setTimeout(r, 1000));
    const latencies: number[] = [];
    let missed = 0;
    for (let c = 0; c < CHANGES; c++) {
      answeredAt.clear();
      const changedAt = Date.now();
      await bumpers.bump(domain);
      const deadline = changedAt + 5000;
      while (answeredAt.size < waiting.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      missed += waiting.length - answeredAt.size;
      for (const at of answeredAt.values()) latencies.push(at - changedAt);
      await new Promise((r) => setTimeout(r, 700));
    }

    // Encrypt: alone (heartbeats and waiters paused), then with them, ROUNDS times in turn: one
    // pair of runs moves by ±15 % on this kind of machine, the median of the pairs' ratios less.
    const pairs: { alone: number; loaded: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      generation++;
      // (Waiting calls of the old generation stay open, idle, until the new one replaces them.)
      await new Promise((r) => setTimeout(r, 1000));
      beatingOn = false;
      const alone = await encryptRate(server.base, token, hot, SECONDS);
      generation++;
      const burning = BURN > 0 ? burner(BURN) : null;
      if (!burning) {
        beatingOn = true;
        for (const a of waiting) loops.push(wait(a));
      }
      await new Promise((r) => setTimeout(r, 2000));
      const loaded = await encryptRate(server.base, token, hot, SECONDS);
      burning?.kill();
      pairs.push({ alone, loaded });
      console.log(
        `${engine}: encrypt round ${round + 1}: alone ${alone.toFixed(0)}, under ${BURN > 0 ? `a ${BURN} % burner` : 'agent load'} ${loaded.toFixed(0)} req/s (${(loaded / alone).toFixed(3)})`,
      );
    }
    const ratio = pct(
      pairs.map((p) => p.loaded / p.alone),
      50,
    );
    const alone = pct(
      pairs.map((p) => p.alone),
      50,
    );
    const loaded = pct(
      pairs.map((p) => p.loaded),
      50,
    );
    return [
      `| ${engine} | heartbeats | ${hbRate.toFixed(0)}/s (${beating.length} agents every ${HEARTBEAT_S} s), ${refused} refused | server CPU ${(cpuShare * 100).toFixed(1)} % of one core | target ≤ 10 %: ${cpuShare <= 0.1 ? 'meets' : 'MISSES'} |`,
      `| ${engine} | config push | ${waiting.length} waiters × ${CHANGES} changes: max ${Math.max(0, ...latencies)} ms, p99 ${pct(latencies, 99)} ms, p50 ${pct(latencies, 50)} ms, ${missed} missed | | target all within 2 s: ${missed === 0 && Math.max(0, ...latencies) <= 2000 ? 'meets' : 'MISSES'} |`,
      `| ${engine} | encrypt | median of ${ROUNDS} pairs: alone ${alone.toFixed(0)} req/s, under ${BURN > 0 ? `a ${BURN} % burner (control)` : 'agent load'} ${loaded.toFixed(0)} req/s | ratio ${ratio.toFixed(3)} (median) | target 0.95–1.05: ${ratio >= 0.95 && ratio <= 1.05 ? 'meets' : 'MISSES'} |`,
    ];
  } finally {
    stop = true;
    await server.stop();
    await bumpers.close();
    await pgDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: string[] = [];
for (const engine of ENGINES) {
  const lines = await runEngine(engine);
  rows.push(...lines);
  for (const l of lines) console.log(l);
}
console.log(`\n| engine | what | figures | | target |\n|---|---|---|---|---|\n${rows.join('\n')}`);
process.exit(0);
