import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync, readFileSync, realpathSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { hostname, networkInterfaces, release, type, arch } from 'node:os';
import { resolve } from 'node:path';
import type { AgentConfig, AgentKey } from '@ksp/contracts';
import { decryptFile, isProtected } from './format.js';
import { guardPointOf, protectGuardPoint } from './guard.js';
import { unwrapKey } from './keys.js';
import { RDM_EVENT, RdmMonitor, rdmWatchesOf, type SuspiciousProcess } from './rdm.js';
import { sendToSyslog } from './syslog.js';
import { evaluate, type Access, type Decision, type Subject } from './rules.js';
import type { AgentState, AgentIdentity } from './state.js';
import { logAuthorization, post, signedBody, type Endpoint } from './transport.js';
import { PATHS, UNKNOWN_CLIENT_MESSAGE, type LogRecord } from './wire.js';

export const AGENT_VERSION = '1.9.0';

const log = (...args: unknown[]) => console.error(new Date().toISOString(), ...args);

function facts() {
  const mac =
    Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.mac !== '00:00:00:00:00:00')?.mac ?? '';
  return { os: `${type()} ${release()} ${arch()}`, agent_version: AGENT_VERSION, mac, host: hostname() };
}

/** Enrols with a registration token: a new key (kept 0600), a CSR (openssl), the certificate. */
export async function enrol(
  state: AgentState,
  o: { server: string; token: string; name: string; type: string; keyType?: 'ec' | 'rsa'; ca?: string },
): Promise<AgentIdentity> {
  if (state.enrolled()) throw new Error(`${state.dir} already holds an enrolled agent`);
  state.ensureDir();
  const pair =
    o.keyType === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  state.write('agent.key', pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const csr = execFileSync(
    'openssl',
    ['req', '-new', '-key', state.file('agent.key'), '-subj', `/CN=${o.name}`],
    {
      encoding: 'utf8',
    },
  );
  const answer = await post<{
    client_id: string;
    certificate_pem: string;
    chain_pem: string[];
    heartbeat_seconds: number;
    heartbeat_port?: number | null;
  }>(
    { server: o.server, ...(o.ca ? { ca: o.ca } : {}) },
    PATHS.enrol,
    JSON.stringify({ token: o.token, csr, name: o.name, type: o.type, ...facts() }),
  );
  if (answer.code !== 0) {
    rmSync(state.file('agent.key'), { force: true });
    throw new Error(`enrolment refused: ${answer.code} ${answer.msg}`);
  }
  state.write('agent.pem', answer.data.certificate_pem);
  state.write('chain.pem', answer.data.chain_pem.join(''));
  const identity: AgentIdentity = {
    server: o.server,
    client_id: answer.data.client_id,
    name: o.name,
    type: o.type,
    ...(o.ca ? { ca: o.ca } : {}),
    heartbeat_seconds: answer.data.heartbeat_seconds,
    heartbeat_port: answer.data.heartbeat_port ?? null,
  };
  state.saveIdentity(identity);
  return identity;
}

/** Uploads client log records; kept in `pending-logs.jsonl` when the server cannot be reached. */
export async function uploadLogs(state: AgentState, records: LogRecord[]): Promise<boolean> {
  if (records.length === 0) return true;
  const id = state.identity();
  const body = JSON.stringify({ client_name: id.name, client_os: `${type()} ${release()}`, records });
  try {
    const answer = await post<{ accepted: number }>(id, PATHS.logUpload, body, {
      headers: { authorization: await logAuthorization(state.privateKey(), state.certificate(), body) },
    });
    if (answer.code === 0) return true;
    log('log upload refused', answer.code, answer.msg);
  } catch (err) {
    log('log upload failed', err instanceof Error ? err.message : err);
  }
  appendFileSync(state.file('pending-logs.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''), {
    mode: 0o600,
  });
  return false;
}

/**
 * A new log event: to the profile's syslog servers when it enables syslog (contracts
 * `AgentProfile.syslog`), and uploaded to KSP (kept for later when KSP cannot be reached).
 */
export async function emitLogs(state: AgentState, records: LogRecord[]): Promise<boolean> {
  let key: KeyObject | undefined;
  try {
    key = state.privateKey();
  } catch {
    key = undefined;
  }
  await sendToSyslog(state.config()?.profile?.syslog, records, key, (m) => log(m));
  return uploadLogs(state, records);
}

/** Sends what earlier uploads could not. */
export async function flushPendingLogs(state: AgentState) {
  const text = state.read('pending-logs.jsonl');
  if (!text) return;
  rmSync(state.file('pending-logs.jsonl'), { force: true });
  const records = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogRecord);
  for (let i = 0; i < records.length; i += 500) await uploadLogs(state, records.slice(i, i + 500));
}

/** The key versions the agent holds, unwrapped in memory: "id:version" → bytes, and the latest per id. */
export function loadKeys(state: AgentState, privateKey: KeyObject = state.privateKey()) {
  const byVersion = new Map<string, Buffer>();
  const latest = new Map<string, { bytes: Buffer; version: number }>();
  const history: Record<string, AgentKey> = state.keyHistory();
  for (const key of Object.values(history)) {
    try {
      const bytes = unwrapKey(key, privateKey);
      byVersion.set(`${key.id}:${key.version}`, bytes);
      const cur = latest.get(key.id);
      if (!cur || cur.version < key.version) latest.set(key.id, { bytes, version: key.version });
    } catch (err) {
      log(`key ${key.id} v${key.version} does not unwrap:`, err instanceof Error ? err.message : err);
    }
  }
  return { byVersion, latest };
}

function namesOf(file: string, id: number): string | undefined {
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const parts = line.split(':');
      if (parts[2] === String(id)) return parts[0];
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The OS user of this process (uid, gid and their names from /etc/passwd and /etc/group). */
export function currentUser(): Subject {
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  const uname = namesOf('/etc/passwd', uid);
  const gname = namesOf('/etc/group', gid);
  return { uid, gid, ...(uname ? { uname } : {}), ...(gname ? { gname } : {}) };
}

export function processInfo(path: string, withHash: boolean) {
  const real = realpathSync(path);
  return {
    path: real,
    ...(withHash ? { sha256: createHash('sha256').update(readFileSync(real)).digest('hex') } : {}),
  };
}

export interface ReadOutcome {
  decision: Decision | null;
  /** The bytes the caller sees (decrypted with applykey, raw otherwise); undefined when denied. */
  data?: Buffer;
  guardPoint?: string;
}

/**
 * Reads a file as `process` for the current user, under the policy of the guard point holding
 * it (outside every guard point: read as is). Audits and denials become client log records.
 */
export async function readAs(
  state: AgentState,
  path: string,
  exe: string,
  user = currentUser(),
): Promise<ReadOutcome> {
  const config = state.config();
  const abs = resolve(path);
  const found = guardPointOf(config, abs);
  if (!found || !found.gp.policy || found.gp.policy.type !== 'standard')
    return { decision: null, data: readFileSync(abs) };
  const policy = found.gp.policy;
  const needsHash = policy.security_rules.some((r) => r.processes?.some((p) => p.sha256?.length));
  const access: Access = {
    user,
    process: processInfo(exe, needsHash),
    resource: found.resource,
    action: 'read',
  };
  const decision = evaluate(policy.security_rules, access, policy.learn_mode);
  if (decision.audit) {
    await emitLogs(state, [
      {
        level: decision.permit ? 'INFO' : 'WARN',
        at: new Date().toISOString(),
        action: 'read',
        effect: decision.permit ? (decision.learned ? 'audit' : 'permit') : 'deny',
        policy: policy.name,
        guard_point: found.gp.path,
        os_user: user.uname ?? String(user.uid),
        process: access.process.path,
        resource: abs,
        details: { uid: user.uid, gid: user.gid, rule: decision.rule, learn_mode: decision.learned },
      },
    ]);
  }
  if (!decision.permit) return { decision, guardPoint: found.gp.path };
  const raw = readFileSync(abs);
  if (!decision.applykey || !isProtected(raw)) return { decision, data: raw, guardPoint: found.gp.path };
  const { byVersion } = loadKeys(state);
  return {
    decision,
    data: decryptFile(raw, (id, version) => byVersion.get(`${id}:${version}`)),
    guardPoint: found.gp.path,
  };
}

interface RunOptions {
  /** Seconds between heartbeats (default: what the server said). */
  heartbeatSeconds?: number;
  /** Seconds a config call waits (≤ 30). */
  waitSeconds?: number;
  /** ms between two passes over the guard points. */
  scanMs?: number;
  signal?: AbortSignal;
}

/**
 * The daemon: heartbeats, holds the config call open (catching up after a reconnection from the
 * version it kept), protects the guard points, runs RDM, uploads pending records.
 */
export async function run(state: AgentState, o: RunOptions = {}): Promise<void> {
  const id = state.identity();
  const key = state.privateKey();
  let stopped = false;
  // Everything the daemon waits on (sleeps, calls) ends when this aborts: the caller's signal,
  // or the server saying that this client is deleted or unknown. One listener on the caller's
  // signal; each sleep and call removes its own listener when it ends.
  const halt = new AbortController();
  const stop = (why?: string) => {
    if (why && !stopped) log(why);
    stopped = true;
    halt.abort();
  };
  const onCallerAbort = () => stop();
  if (o.signal?.aborted) stop();
  o.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      if (halt.signal.aborted) return r();
      const wake = () => {
        clearTimeout(t);
        r();
      };
      const t = setTimeout(() => {
        halt.signal.removeEventListener('abort', wake);
        r();
      }, ms);
      halt.signal.addEventListener('abort', wake, { once: true });
    });
  /** The server no longer knows this client (force-deleted): nothing more to do. */
  const unknownClient = (answer: { code: number; msg: string }) =>
    answer.code === 4001 && answer.msg === UNKNOWN_CLIENT_MESSAGE;

  let config = state.config();
  let keys = loadKeys(state, key);
  const watchers: FSWatcher[] = [];
  let scanQueued = false;
  const rdm = new RdmMonitor((event) => void reportSuspicious(state, event));

  const protectAll = () => {
    scanQueued = false;
    for (const gp of config?.guard_points ?? []) {
      const result = protectGuardPoint(gp, (keyId) => keys.latest.get(keyId));
      for (const e of result.errors) log('protect:', e.path, e.error);
    }
  };
  const applyConfig = (next: AgentConfig) => {
    state.saveConfig(next);
    config = next;
    keys = loadKeys(state, key);
    for (const w of watchers.splice(0)) w.close();
    for (const gp of next.guard_points) {
      if (!gp.enabled || gp.policy?.type !== 'standard') continue;
      try {
        const w = watch(gp.path, { recursive: true }, () => {
          if (!scanQueued) {
            scanQueued = true;
            setTimeout(protectAll, 250);
          }
        });
        w.on('error', () => undefined);
        watchers.push(w);
      } catch (err) {
        log('guard point', gp.path, 'cannot be watched:', err instanceof Error ? err.message : err);
      }
    }
    rdm.update(rdmWatchesOf(next));
    protectAll();
    log(
      `configuration version ${next.version}: ${next.guard_points.length} guard point(s), ${next.keys.length} key(s)`,
    );
  };
  if (config) applyConfig(config);

  /** The agent listener the server named (its host, this port), else the server's URL. */
  const heartbeatEndpoint = (): Endpoint => {
    const port = state.identity().heartbeat_port;
    if (!port) return id;
    const url = new URL(id.server);
    url.port = String(port);
    return { ...id, server: url.toString() };
  };
  type HeartbeatAnswer = {
    state: string;
    heartbeat_seconds: number;
    certificate_pem: string;
    heartbeat_port?: number | null;
  };
  /** A heartbeat to the agent listener; on the server's URL when the listener cannot be reached. */
  const sendHeartbeat = async (payload: object) => {
    const via = heartbeatEndpoint();
    const send = (endpoint: Endpoint) =>
      post<HeartbeatAnswer>(endpoint, PATHS.heartbeat, signedBody(id.client_id, key, payload), {
        signal: halt.signal,
        headers: { 'accept-language': 'en' },
      });
    if (via === id) return send(id);
    try {
      return await send(via);
    } catch (err) {
      if (halt.signal.aborted) throw err;
      log('agent listener unreachable, heartbeat on', id.server, err instanceof Error ? err.message : err);
      return send(id);
    }
  };

  const heartbeatLoop = async () => {
    log('heartbeats to', heartbeatEndpoint().server);
    while (!stopped) {
      try {
        const answer = await sendHeartbeat(facts());
        if (answer.code === 0) {
          if (answer.data.certificate_pem !== state.certificate())
            state.write('agent.pem', answer.data.certificate_pem);
          const current = state.identity();
          state.saveIdentity({
            ...current,
            heartbeat_port: answer.data.heartbeat_port ?? null,
            last_heartbeat_at: new Date().toISOString(),
            last_heartbeat_state: answer.data.state,
          });
          if (answer.data.state === 'deleted') {
            await sendHeartbeat({ acknowledge_delete: true }).catch(() => undefined);
            stop('the client was deleted in KSP: acknowledged, stopping');
            break;
          }
        } else if (unknownClient(answer)) {
          stop('the client is unknown to KSP (deleted): stopping');
          break;
        } else log('heartbeat refused', answer.code, answer.msg);
      } catch (err) {
        if (stopped) break;
        log('heartbeat failed', err instanceof Error ? err.message : err);
      }
      await sleep((o.heartbeatSeconds ?? id.heartbeat_seconds) * 1000);
    }
  };

  const configLoop = async () => {
    let backoff = 1000;
    while (!stopped) {
      const wait = o.waitSeconds ?? 25;
      try {
        const answer = await post<{ state: string; changed: boolean; config: AgentConfig }>(
          id,
          PATHS.config,
          signedBody(id.client_id, key, { since_version: config?.version ?? 0, wait_s: wait }),
          { timeoutMs: (wait + 15) * 1000, signal: halt.signal, headers: { 'accept-language': 'en' } },
        );
        if (unknownClient(answer)) {
          stop('the client is unknown to KSP (deleted): stopping');
          break;
        }
        if (answer.code !== 0) throw new Error(`${answer.code} ${answer.msg}`);
        backoff = 1000;
        if (answer.data.state === 'deleted') {
          // Acknowledged as the heartbeat does, so the server can finish the deletion.
          await sendHeartbeat({ acknowledge_delete: true }).catch(() => undefined);
          stop('the client was deleted in KSP: acknowledged, stopping');
          break;
        }
        if (answer.data.changed || !config) applyConfig(answer.data.config);
      } catch (err) {
        if (stopped) break;
        log('config call failed', err instanceof Error ? err.message : err);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  };

  const housekeeping = async () => {
    while (!stopped) {
      await flushPendingLogs(state).catch(() => undefined);
      if (!scanQueued) protectAll();
      await sleep(o.scanMs ?? 2000);
    }
  };

  await Promise.all([heartbeatLoop(), configLoop(), housekeeping()]);
  o.signal?.removeEventListener('abort', onCallerAbort);
  for (const w of watchers) w.close();
  rdm.close();
}

async function reportSuspicious(state: AgentState, e: SuspiciousProcess) {
  log(
    `RDM: pid ${e.pid} (${e.exe}) changed ${e.files.length} files in ${e.watch.gp.path}${e.killed ? ': killed' : ''}`,
  );
  await emitLogs(state, [
    {
      level: 'WARN',
      at: new Date().toISOString(),
      action: RDM_EVENT,
      effect: e.killed ? 'deny' : 'audit',
      policy: e.watch.policy,
      guard_point: e.watch.gp.path,
      process: e.exe,
      resource: e.files[0] ?? e.watch.gp.path,
      details: {
        pid: e.pid,
        files: e.files.length,
        window_s: e.watch.threshold.window_s,
        threshold: e.watch.threshold.files,
        mode: e.watch.mode,
        trusted: e.trusted,
        killed: e.killed,
      },
    },
  ]);
}
