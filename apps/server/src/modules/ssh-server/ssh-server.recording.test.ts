import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { call, engines, initialize, startServer, type TestServer } from '../../test/harness.js';
import { createDomainSealer } from '../../platform/keyring/domain-sealer.js';
import type { Actor } from '../../platform/http/route.js';
import { plainActor } from '../../test/fixtures.js';
import { createRecordings, SESSION_ALIVE_MS } from './ssh-server.recording.js';

/** The recorder on its own (no sshd): size limit, cut-off sessions, order of chunks. */
describe.each(await engines())('terminal recordings on %s', (engine) => {
  let server: TestServer;
  let actor: Actor;
  let serverId: string;

  beforeAll(async () => {
    server = await startServer(engine);
    const { token } = await initialize(server);
    const cred = await call(server, api.credential.create, {
      token,
      body: { name: 'rec root', type: 'password', value: 'Rec-pw-1' },
    });
    const created = await call(server, api.sshServer.create, {
      token,
      body: { name: 'rec-1', host: '127.0.0.1', port: 22, account: 'root', credential_id: cred.data.id },
    });
    expect(created.code, created.msg).toBe(0);
    serverId = created.data.id;
    const domain = await server.database.db
      .selectFrom('domain')
      .select(['id', 'name'])
      .where('parent_id', 'is', null)
      .executeTakeFirstOrThrow();
    actor = plainActor({
      userId: 'u-rec',
      username: 'rec-user',
      domainId: domain.id,
      domainName: domain.name,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const recordings = (maxBytes?: number) =>
    createRecordings({
      flushMs: 20,
      db: server.database.db,
      sealer: createDomainSealer({ keyring: server.services.keyring }),
      clock: () => server.clock.now,
      maxBytes,
    });
  const meta = { ip: '127.0.0.9', lang: 'en' as const, userAgent: 'test' };
  const target = () => ({ id: serverId, name: 'rec-1' });

  it('stops recording at the size limit with a marker, and says the recording is truncated', async () => {
    const rec = recordings(2048);
    const r = await rec.start(actor, meta, target(), { cols: 80, rows: 24 });
    for (let i = 0; i < 100; i++) r.output(`line ${i} ${'x'.repeat(40)}\r\n`);
    await r.end('closed', 3, 5000);
    const cast = await rec.cast(actor, r.id, 't');
    expect(Buffer.byteLength(cast)).toBeLessThan(2048 + 300);
    const events = cast
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as [number, string, string]);
    expect(events.at(-1)).toMatchObject([expect.any(Number), 'm', 'recording size limit reached']);
    expect(events.filter((e) => e[1] === 'o').map((e) => e[2])[0]).toContain('line 0');
    const { session } = await rec.find(actor, r.id);
    expect(session).toMatchObject({ status: 'ended', recording_truncated: true, bytes_out: 5000 });
  });

  it('keeps what was stored of a session whose node stopped, and shows it as interrupted', async () => {
    const rec = recordings();
    const r = await rec.start(actor, meta, target(), { cols: 80, rows: 24 });
    r.output('before the crash\r\n');
    // The periodic flush stores the output; the node then stops without ending the session.
    server.clock.advance(SESSION_ALIVE_MS / 1000);
    for (let i = 0; i < 100; i++) {
      const n = await server.database.db
        .selectFrom('ssh_session_chunk')
        .select('seq')
        .where('session_id', '=', r.id)
        .execute();
      if (n.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await rec.find(actor, r.id)).session.status).toBe('active');
    server.clock.advance((4 * SESSION_ALIVE_MS) / 1000);
    const { session } = await rec.find(actor, r.id);
    expect(session).toMatchObject({ status: 'interrupted', end_reason: 'interrupted', ended_at: null });
    expect(await rec.cast(actor, r.id, 't')).toContain('before the crash');
  });
});
