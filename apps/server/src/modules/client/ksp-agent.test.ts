import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { agentProcess as agent, agentServer, enrolAgent, finished, until } from '../../test/agent.js';
import { call, type TestServer } from '../../test/harness.js';

/**
 * The reference agent (tools/ksp-agent) against a real server on a loopback port: enrolment,
 * the config channel, guard point encryption, `cat` under the policy, client logs, RDM block.
 * Everything the agent receives is made through the calls the console makes: a TDE key,
 * policy elements, a standard and an RDM policy, guard points on the enrolled clients (the real
 * tde-policy and tde-client modules compose the document). SQLite only: the channel itself is
 * tested on both engines (client.config.test.ts).
 */
describe('ksp-agent (reference agent) against a server', () => {
  let server: TestServer;
  let token: string;
  let base: string;
  let daemon: ChildProcess | undefined;
  let daemonLog = '';
  const work = mkdtempSync(join(tmpdir(), 'ksp-agent-it-'));
  const stateDir = join(work, 'state');
  const rdmState = join(work, 'rdm-state');
  const gpDir = join(work, 'finance');
  const rdmDir = join(work, 'shares');
  const uid = process.getuid!();
  let clientId = '';
  let keyId = '';
  const sets: Record<string, string> = {};
  let policyId = '';
  let rdmDaemon: ChildProcess | undefined;

  const ok = <T extends { code: number; msg: string }>(res: T): T => {
    expect(res.code, res.msg).toBe(0);
    return res;
  };
  /** What the console makes (a key, a policy element, a TDE or RDM policy): its id. */
  const create = async (
    def: typeof api.key.create | typeof api.tdePolicy.elementCreate | typeof api.tdePolicy.policyCreate,
    body: Record<string, unknown>,
  ) => ok(await call(server, def, { token, body: body as never })).data.id;
  const element = (name: string, body: Record<string, unknown>) =>
    create(api.tdePolicy.elementCreate, { name, ...body });
  const enrol = async (name: string, type: 'tde' | 'rdm', state: string) => {
    const created = ok(
      await call(server, api.registrationToken.create, {
        token,
        body: { name: `${name}-token`, usage: type === 'tde' ? 'cte' : 'rdm', capacity: 0 },
      }),
    ).data;
    return enrolAgent(base, { secret: created.secret, name, type, state });
  };
  const configVersion = () => {
    try {
      return (JSON.parse(readFileSync(join(stateDir, 'config.json'), 'utf8')) as { version: number }).version;
    } catch {
      return 0;
    }
  };
  const clientLogs = async (action: string) =>
    (await call(server, api.clientLog.list, { token, query: { page: 1, page_size: 50, action } })).data.data;

  // With the agent listener: the daemon heartbeats on the port the enrolment names.
  agentServer((started) => ({ server, token, base } = started), { KSP_AGENT_PORT: '0' });
  beforeAll(async () => {
    mkdirSync(join(gpDir, 'sub'), { recursive: true });
    writeFileSync(join(gpDir, 'open.txt'), 'open figures\n');
    writeFileSync(join(gpDir, 'secret.txt'), 'secret figures\n');
    writeFileSync(join(gpDir, 'sub', 'deep.txt'), 'deep figures\n');
    mkdirSync(rdmDir);
    for (let i = 1; i <= 40; i++) writeFileSync(join(rdmDir, `f${i}.txt`), `document ${i}\n`);

    // What the console makes: a TDE key, the sets, a standard policy and an RDM policy.
    keyId = await create(api.key.create, {
      name: 'finance-key',
      algorithm: 'AES-256',
      usage_mask: 0xc,
      cte: { versioned: false, persistent_on_client: false, encryption_mode: 'CBC' },
    });
    sets.open = await element('open-file', {
      kind: 'resource',
      resources: [{ directory: '/', file: 'open.txt', include_subfolders: false }],
    });
    sets.secret = await element('secret-file', {
      kind: 'resource',
      resources: [{ directory: '/', file: 'secret.txt', include_subfolders: false }],
    });
    sets.me = await element('me', { kind: 'user', users: [{ uid }] });
    sets.someone = await element('someone-else', { kind: 'user', users: [{ uid: uid + 1 }] });
    sets.tac = await element('tac', { kind: 'process', processes: [{ file: 'tac' }] });
    policyId = await create(api.tdePolicy.policyCreate, {
      name: 'finance',
      type: 'standard',
      security_rules: [
        { process_set_id: sets.tac, actions: ['read'], effects: ['deny'] },
        {
          user_set_id: sets.me,
          resource_set_id: sets.open,
          actions: ['all_ops'],
          effects: ['permit', 'applykey'],
        },
        {
          user_set_id: sets.someone,
          resource_set_id: sets.secret,
          actions: ['read'],
          effects: ['permit', 'applykey', 'audit'],
        },
        { actions: ['all_ops'], effects: ['deny'] },
      ],
      key_rules: [{ key_id: keyId }],
    });
  });
  afterAll(async () => {
    daemon?.kill('SIGTERM');
    rdmDaemon?.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  });

  it('enrols with a registration token and keeps its key and certificate 0600 in a 0700 state directory', async () => {
    clientId = await enrol('db-01', 'tde', stateDir);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(stateDir, 'agent.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(stateDir, 'agent.pem')).mode & 0o777).toBe(0o600);
    const row = await server.database.db
      .selectFrom('client')
      .select(['domain_id', 'type', 'name'])
      .where('id', '=', clientId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: 'tde', name: 'db-01' });
  });

  it('receives its guard points and key, and turns the clear files into ciphertext (new files too)', async () => {
    ok(
      await call(server, api.tdeClient.guardPointCreate, {
        token,
        body: { client_id: clientId, path: gpDir, type: 'directory_auto', policy_id: policyId },
      }),
    );
    daemon = agent(['run', '--state', stateDir, '--heartbeat-s', '2', '--wait-s', '20']);
    daemon.stderr?.on('data', (c: Buffer) => (daemonLog += c.toString()));
    // Its heartbeats go to the agent listener the enrolment named, and are recorded.
    const identity = JSON.parse(readFileSync(join(stateDir, 'agent.json'), 'utf8')) as {
      heartbeat_port: number;
    };
    expect(identity.heartbeat_port).toEqual(expect.any(Number));
    expect(`http://127.0.0.1:${identity.heartbeat_port}`).not.toBe(base);
    await until(`heartbeats to the listener (${daemonLog})`, () =>
      daemonLog.includes(`heartbeats to http://127.0.0.1:${identity.heartbeat_port}`),
    );
    await until('a heartbeat recorded', async () => {
      const row = await server.database.db
        .selectFrom('client')
        .select('last_request_ms')
        .where('id', '=', clientId)
        .executeTakeFirstOrThrow();
      return Number(row.last_request_ms) > 0;
    });
    for (const file of ['open.txt', 'secret.txt', 'sub/deep.txt'])
      await until(`${file} encrypted (${daemonLog})`, () => {
        const data = readFileSync(join(gpDir, file));
        return data.subarray(0, 4).toString() === 'KSPE' && !data.toString('latin1').includes('figures');
      });
    // The key never crossed the wire in clear, nor sits in the state directory.
    const saved = readFileSync(join(stateDir, 'config.json'), 'utf8');
    expect(saved).toContain(keyId);
    expect(saved).not.toMatch(/"(material|bytes|key_bytes)"/);
    writeFileSync(join(gpDir, 'later.txt'), 'later figures\n');
    await until(
      'a new file encrypted',
      () => readFileSync(join(gpDir, 'later.txt')).subarray(0, 4).toString() === 'KSPE',
    );
  });

  it('cat: permitted (decrypted) for the allowed user, denied under another uid rule, the denial uploaded', async () => {
    const open = await finished(agent(['cat', '--state', stateDir, join(gpDir, 'open.txt')]));
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toBe('open figures\n');
    const secret = await finished(agent(['cat', '--state', stateDir, join(gpDir, 'secret.txt')]));
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain('permission denied');
    expect(secret.stdout).toBe('');
    const denials = await until('the denial in the client logs', async () => {
      const rows = (await clientLogs('read')).filter((r) => r.effect === 'deny');
      return rows.length ? rows : undefined;
    });
    expect(denials[0]).toMatchObject({
      policy: 'finance',
      guard_point: gpDir,
      resource: join(gpDir, 'secret.txt'),
    });
  });

  it('exec: the program run is the process the rules see (cat permitted, tac denied by its process rule)', async () => {
    const cat = await finished(agent(['exec', '--state', stateDir, '--', 'cat', join(gpDir, 'open.txt')]));
    expect(cat.code, cat.stderr).toBe(0);
    expect(cat.stdout).toBe('open figures\n');
    const tac = await finished(agent(['exec', '--state', stateDir, '--', 'tac', join(gpDir, 'open.txt')]));
    expect(tac.code).toBe(1);
    expect(tac.stderr).toContain('permission denied');
    expect(tac.stdout).toBe('');
  });

  it('applies a policy change made through the console call within 2 s, after which the other rule permits', async () => {
    const before = configVersion();
    const changedAt = Date.now();
    // The "someone else" user set now names this user: the policy's third rule permits secret.txt.
    ok(
      await call(server, api.tdePolicy.elementUpdate, {
        token,
        body: { id: sets.someone, name: 'someone-else', users: [{ uid }] } as never,
      }),
    );
    await until('the new configuration', () => configVersion() > before, 5000);
    expect(Date.now() - changedAt).toBeLessThan(2000);
    const secret = await finished(agent(['cat', '--state', stateDir, join(gpDir, 'secret.txt')]));
    expect(secret.code, secret.stderr).toBe(0);
    expect(secret.stdout).toBe('secret figures\n');
    const status = await finished(agent(['status', '--state', stateDir]));
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout) as { client_id: string; config_version: number; keys: object[] };
    expect(shown).toMatchObject({ client_id: clientId, config_version: configVersion() });
    expect(shown.keys).toEqual([{ id: keyId, name: 'finance-key', version: 1 }]);
    expect(status.stdout).not.toContain('wrapped');
  });

  it('a client locked in the console refuses unenrol and re-enrol on its host, and says so in its status', async () => {
    const locked = () =>
      (JSON.parse(readFileSync(join(stateDir, 'config.json'), 'utf8')) as { client_locked?: boolean })
        .client_locked === true;
    ok(await call(server, api.tdeClient.lock, { token, body: { id: clientId, locked: true } }));
    await until('the locked configuration', () => locked(), 5000);
    const unenrol = await finished(agent(['unenrol', '--state', stateDir]));
    expect(unenrol.code).toBe(1);
    expect(unenrol.stderr).toContain('unenrol refused: this client is locked by KSP');
    const reenrol = await finished(
      agent(['enrol', '--state', stateDir, '--server', base, '--token', 'x', '--name', 'again']),
    );
    expect(reenrol.code).toBe(1);
    expect(reenrol.stderr).toContain('enrol refused: this client is locked by KSP');
    const status = JSON.parse((await finished(agent(['status', '--state', stateDir]))).stdout) as {
      locked: boolean;
    };
    expect(status.locked).toBe(true);
    ok(await call(server, api.tdeClient.lock, { token, body: { id: clientId, locked: false } }));
    await until('the unlocked configuration', () => !locked(), 5000);
    const after = JSON.parse((await finished(agent(['status', '--state', stateDir]))).stdout) as {
      locked: boolean;
    };
    expect(after.locked).toBe(false);
  });

  it('RDM in block mode kills a process that rewrites many files quickly and reports rdm.suspicious', async () => {
    // An RDM agent of its own, its guard point under an RDM policy in block mode.
    const rdmClient = await enrol('fs-01', 'rdm', rdmState);
    const rdmPolicy = await create(api.rdmPolicy.policyCreate, {
      name: 'shares-rdm',
      type: 'rdm',
      rdm: { mode: 'block', threshold: { files: 5, window_s: 10 } },
    });
    ok(
      await call(server, api.rdmClient.guardPointCreate, {
        token,
        body: { client_id: rdmClient, path: rdmDir, type: 'directory_auto', policy_id: rdmPolicy },
      }),
    );
    rdmDaemon = agent(['run', '--state', rdmState, '--heartbeat-s', '2', '--wait-s', '20']);
    const rdmVersion = () => {
      try {
        return (JSON.parse(readFileSync(join(rdmState, 'config.json'), 'utf8')) as { version: number })
          .version;
      } catch {
        return 0;
      }
    };
    await until(
      'the RDM agent has its guard point',
      () => rdmVersion() > 0 && readFileSync(join(rdmState, 'config.json'), 'utf8').includes(rdmDir),
    );
    // The RDM agent watches; give its watcher a moment to start.
    await new Promise((r) => setTimeout(r, 500));
    const writer = spawn(
      'sh',
      ['-c', 'i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo locked > f$i.txt; sleep 0.1; done'],
      {
        cwd: rdmDir,
        stdio: 'ignore',
      },
    );
    const { signal } = await finished(writer);
    expect(signal).toBe('SIGKILL');
    const rewritten = Array.from({ length: 40 }, (_, i) =>
      readFileSync(join(rdmDir, `f${i + 1}.txt`), 'utf8'),
    ).filter((t) => t === 'locked\n').length;
    expect(rewritten).toBeGreaterThanOrEqual(5);
    expect(rewritten).toBeLessThan(40);
    const events = await until('the rdm.suspicious record', async () => {
      const rows = await clientLogs('rdm.suspicious');
      return rows.length ? rows : undefined;
    });
    expect(events[0]).toMatchObject({ effect: 'deny', guard_point: rdmDir, policy: 'shares-rdm' });
    expect(events[0]!.details).toMatchObject({ killed: true, mode: 'block' });
  });

  it('run: stops within 2 s of SIGTERM, though its config call is held open for 20 s', async () => {
    const running = daemon!;
    expect(running.exitCode).toBeNull();
    const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
    const asked = Date.now();
    running.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - asked).toBeLessThan(2000);
    daemon = undefined;
  });
});
