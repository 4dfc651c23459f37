import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api, Code } from '@ksp/contracts';
import { call, domainWithAdmin, engines, login, type TestServer } from '../../test/harness.js';
import { auditRecords, signedInServer, userWithRole } from '../../test/fixtures.js';
import { setPassword, startSshd, throwawayAccount, type Sshd } from '../../test/sshd.js';
import { TERMINAL_PATH, TERMINAL_PER_USER } from './ssh-server.terminal.js';

const ACCOUNT = `ksp-term-${process.pid % 100000}`;
const PASSWORD = 'Term-pw-9q7x!Kd';

let sshd: Sshd;
let removeAccount: () => void;
let uidLine: string;

beforeAll(async () => {
  removeAccount = throwawayAccount(ACCOUNT, PASSWORD);
  uidLine = spawnSync('id', [ACCOUNT], { encoding: 'utf8' }).stdout.trim();
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
  removeAccount?.();
});

/** A terminal as the browser opens it: WebSocket, ticket in the first message, then the frames it gets. */
class Terminal {
  readonly ws: WebSocket;
  output = '';
  errors: string[] = [];
  exit: string | null = null;
  closed: Promise<void>;
  private waiters: (() => void)[] = [];

  constructor(url: string, ticket: string) {
    this.ws = new WebSocket(url);
    this.ws.on('open', () => this.ws.send(JSON.stringify({ type: 'auth', ticket, cols: 100, rows: 30 })));
    this.ws.on('message', (raw: Buffer) => {
      const m = JSON.parse(raw.toString('utf8')) as {
        type: string;
        data?: string;
        message?: string;
        reason?: string;
      };
      if (m.type === 'data') this.output += m.data;
      if (m.type === 'ready') this.output += '\u0000ready';
      if (m.type === 'error') this.errors.push(m.message!);
      if (m.type === 'exit') this.exit = m.reason!;
      this.waiters.forEach((w) => w());
    });
    this.closed = new Promise((resolve) => this.ws.on('close', () => resolve()));
    this.ws.on('close', () => this.waiters.forEach((w) => w()));
  }

  /** Resolves once the output contains `text`, or the socket closed. */
  until(text: string): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.output.includes(text)) resolve(true);
        else if (this.ws.readyState === WebSocket.CLOSED) resolve(false);
        else this.waiters.push(check);
      };
      check();
    });
  }

  type(data: string) {
    this.ws.send(JSON.stringify({ type: 'data', data }));
  }
}

describe.each(await engines())('web SSH terminal on %s', (engine) => {
  let server: TestServer;
  let token: string;
  let serverId: string;
  let url: string;

  signedInServer(engine, (started) => ({ server, token } = started), {
    env: { KSP_SSH_ALLOWED_NETWORKS: '127.0.0.1/32' },
  });
  beforeAll(async () => {
    setPassword(ACCOUNT, PASSWORD);
    const cred = await call(server, api.credential.create, {
      token,
      body: { name: 'term root', type: 'password', value: PASSWORD },
    });
    expect(cred.code, cred.msg).toBe(0);
    const created = await call(server, api.sshServer.create, {
      token,
      body: {
        name: 'term-1',
        host: '127.0.0.1',
        port: sshd.port,
        account: ACCOUNT,
        credential_id: cred.data.id,
        host_key_fingerprint: sshd.fingerprint,
        terminal_users: ['admin'],
      },
    });
    expect(created.code, created.msg).toBe(0);
    serverId = created.data.id;
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    url = `ws://127.0.0.1:${(server.app.server.address() as AddressInfo).port}${TERMINAL_PATH}`;
  });

  const ticket = async (t = token, id = serverId) => {
    const r = await call(server, api.sshServer.terminalTicket, { token: t, body: { id } });
    return r;
  };
  const audits = (action: string) => auditRecords(server, action);

  it('opens a shell with the stored credential: `id` answers the account, start and end are audited', async () => {
    const t = await ticket();
    expect(t.code, t.msg).toBe(0);
    expect(t.data.expires_in).toBeLessThanOrEqual(30);
    expect(Buffer.from(t.data.ticket, 'base64url').length).toBeGreaterThanOrEqual(16);
    const term = new Terminal(url, t.data.ticket);
    expect(await term.until('\u0000ready')).toBe(true);
    term.type('id\n');
    expect(await term.until(uidLine)).toBe(true);
    // The password never travels to the browser.
    expect(term.output).not.toContain(PASSWORD);
    term.type('exit\n');
    await term.closed;
    expect(term.exit).toBe('shell-exit');
    expect(await audits('server.terminal.start')).toMatchObject([{ result: 'success', target: 'term-1' }]);
    const end = await audits('server.terminal.end');
    expect(end).toHaveLength(1);
    const details = JSON.parse(end[0]!.details) as Record<string, number>;
    expect(details.bytes_in).toBeGreaterThan(0);
    expect(details.bytes_out).toBeGreaterThan(0);
    for (const row of await server.database.db.selectFrom('audit_log').select('details').execute())
      expect(JSON.stringify(row)).not.toContain(t.data.ticket);
  });

  it('records the session: listed on the server with its figures, replayed as asciicast v2, sealed at rest', async () => {
    const t = await ticket();
    const term = new Terminal(url, t.data.ticket);
    expect(await term.until('\u0000ready')).toBe(true);
    term.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
    term.type('echo rec-$((6*7))\n');
    expect(await term.until('rec-42')).toBe(true);
    term.type('exit\n');
    await term.closed;

    // The end is stored once the browser is told; wait for the session row to close.
    let listed = await call(server, api.sshServer.sessions, {
      token,
      query: { id: serverId, page: 1, page_size: 10 },
    });
    for (let i = 0; i < 50 && listed.data.data[0]?.status !== 'ended'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      listed = await call(server, api.sshServer.sessions, {
        token,
        query: { id: serverId, page: 1, page_size: 10 },
      });
    }
    expect(listed.code, listed.msg).toBe(0);
    const latest = listed.data.data[0]!;
    expect(latest).toMatchObject({
      user_name: 'admin',
      status: 'ended',
      end_reason: 'shell-exit',
      recording_truncated: false,
    });
    expect(latest.bytes_in).toBe(Buffer.byteLength('echo rec-$((6*7))\nexit\n'));
    expect(latest.bytes_out).toBeGreaterThan(0);
    expect(latest.recording_bytes).toBeGreaterThan(0);

    const rec = await call(server, api.sshServer.recording, { token, query: { id: latest.id } });
    expect(rec.code, rec.msg).toBe(0);
    const [head, ...events] = rec.data.cast.trimEnd().split('\n');
    expect(JSON.parse(head!)).toMatchObject({ version: 2, width: 100, height: 30, title: 'term-1 — admin' });
    const parsed = events.map((l) => JSON.parse(l) as [number, string, string]);
    expect(parsed.find((e) => e[1] === 'r')?.[2]).toBe('120x40');
    const printed = parsed
      .filter((e) => e[1] === 'o')
      .map((e) => e[2])
      .join('');
    expect(printed).toContain('rec-42');
    // Times grow from the start of the session.
    const times = parsed.map((e) => e[0]);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Keystrokes are not recorded, and nothing is stored in clear.
    expect(parsed.some((e) => e[1] === 'i')).toBe(false);
    const chunks = await server.database.db.selectFrom('ssh_session_chunk').select('data_sealed').execute();
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks)
      expect(Buffer.from(c.data_sealed, 'base64').toString('latin1')).not.toContain('rec-42');
    expect((await audits('server.session.replay')).at(-1)).toMatchObject({
      result: 'success',
      target: 'term-1',
    });
    const start = (await audits('server.terminal.start')).at(-1)!;
    expect(JSON.parse(start.details)).toMatchObject({ session: latest.id });

    // Another domain sees neither the list nor the recording.
    const other = await domainWithAdmin(server, token, {
      domain: 'rec-other',
      username: 'rec-other-admin',
      password: 'Other-Pass-1',
    });
    const foreignList = await call(server, api.sshServer.sessions, {
      token: other.token,
      query: { id: serverId, page: 1, page_size: 10 },
    });
    expect(foreignList.code).toBe(Code.NOT_FOUND);
    const foreign = await call(server, api.sshServer.recording, {
      token: other.token,
      query: { id: latest.id },
    });
    expect(foreign.code).toBe(Code.NOT_FOUND);
    expect(JSON.stringify(foreign)).not.toContain('rec-42');
  });

  it('refuses a used ticket and an unknown one', async () => {
    const t = await ticket();
    const first = new Terminal(url, t.data.ticket);
    expect(await first.until('\u0000ready')).toBe(true);
    const again = new Terminal(url, t.data.ticket);
    await again.closed;
    expect(again.errors[0]).toMatch(/unknown, used or expired/);
    const forged = new Terminal(url, 'A'.repeat(43));
    await forged.closed;
    expect(forged.errors[0]).toMatch(/unknown, used or expired/);
    first.ws.close();
    await first.closed;
  });

  describe('a ticket dies with the session that asked for it', () => {
    const USER = 'term-ticket';
    const PW = 'Ticket-Pass-1';
    let userToken: string;
    let otherDomain: string;

    beforeAll(async () => {
      const roles = await call(server, api.role.list, { token, query: { page: 1, page_size: 50 } });
      const operator = roles.data.data.find((r) => r.name === 'Operator')!;
      const domains = await call(server, api.domain.list, { token, query: { page: 1, page_size: 50 } });
      const rootId = domains.data.data.find((d) => d.name === 'root')!.id;
      otherDomain = (await call(server, api.domain.create, { token, body: { name: 'ticket-elsewhere' } }))
        .data.id;
      const made = await call(server, api.user.create, {
        token,
        body: {
          username: USER,
          password: PW,
          email: `${USER}@example.test`,
          role_ids: [operator.id],
          domain_ids: [rootId, otherDomain],
          must_change_password: false,
        },
      });
      expect(made.code, made.msg).toBe(0);
      const updated = await call(server, api.sshServer.update, {
        token,
        body: { id: serverId, terminal_users: ['admin', USER] },
      });
      expect(updated.code, updated.msg).toBe(0);
    });
    afterAll(async () => {
      await call(server, api.sshServer.update, { token, body: { id: serverId, terminal_users: ['admin'] } });
    });

    /** A fresh session's ticket, the session ended by `end`, then the ticket tried on the WebSocket. */
    const afterEnd = async (end: (t: string) => Promise<{ code: number; msg: string }>) => {
      userToken = await login(server, USER, PW);
      const t = await ticket(userToken);
      expect(t.code, t.msg).toBe(0);
      const ended = await end(userToken);
      expect(ended.code, ended.msg).toBe(0);
      const term = new Terminal(url, t.data.ticket);
      // Resolves true if a shell opened (then closed here), false once the socket is closed.
      const opened = await term.until('\u0000ready');
      if (opened) term.ws.close();
      await term.closed;
      expect(opened).toBe(false);
      expect(term.errors[0]).toMatch(/session this terminal ticket was issued to has ended/);
      const refused = (await audits('server.terminal.refused')).at(-1)!;
      expect(refused).toMatchObject({ result: 'failure', username: USER, target: 'term-1' });
      expect(JSON.parse(refused.details)).toEqual({ reason: 'server.terminalSessionEnded' });
    };

    it('opens while the session lives (the case the others differ from)', async () => {
      userToken = await login(server, USER, PW);
      const term = new Terminal(url, (await ticket(userToken)).data.ticket);
      expect(await term.until('\u0000ready')).toBe(true);
      term.ws.close();
      await term.closed;
    });

    it('refuses the ticket after the session signed out', async () => {
      await afterEnd((t) => call(server, api.user.logout, { token: t }));
    });

    it('refuses the ticket after the session switched domain', async () => {
      await afterEnd((t) =>
        call(server, api.user.switchDomain, { token: t, body: { domain_name: 'ticket-elsewhere' } }),
      );
    });

    it('refuses the ticket after the password was changed', async () => {
      await afterEnd((t) =>
        call(server, api.user.updateMyPassword, {
          token: t,
          body: { old_password: PW, new_password: 'Ticket-Pass-2' },
        }),
      );
    });
  });

  it('refuses an expired ticket', async () => {
    const t = await ticket();
    server.clock.advance(31);
    const late = new Terminal(url, t.data.ticket);
    await late.closed;
    expect(late.errors[0]).toMatch(/unknown, used or expired/);
  });

  it('refuses one session too many for a user', async () => {
    const open: Terminal[] = [];
    for (let i = 0; i < TERMINAL_PER_USER; i++) {
      const term = new Terminal(url, (await ticket()).data.ticket);
      expect(await term.until('\u0000ready')).toBe(true);
      open.push(term);
    }
    const extra = new Terminal(url, (await ticket()).data.ticket);
    await extra.closed;
    expect(extra.errors[0]).toMatch(new RegExp(`already have ${TERMINAL_PER_USER} terminal sessions`));
    // Another node of the cluster counts the sessions open here too.
    const other = await server.startNode();
    try {
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      const otherUrl = `ws://127.0.0.1:${(other.app.server.address() as AddressInfo).port}${TERMINAL_PATH}`;
      const t = await call(other, api.sshServer.terminalTicket, { token, body: { id: serverId } });
      expect(t.code, t.msg).toBe(0);
      const elsewhere = new Terminal(otherUrl, t.data.ticket);
      await elsewhere.closed;
      expect(elsewhere.errors[0]).toMatch(new RegExp(`already have ${TERMINAL_PER_USER} terminal sessions`));
    } finally {
      await other.close();
    }
    for (const term of open) {
      term.ws.close();
      await term.closed;
    }
  });

  it("refuses another domain's server and a user not in the terminal users or roles", async () => {
    const other = await domainWithAdmin(server, token, {
      domain: 'term-other',
      username: 'term-other-admin',
      password: 'Other-Pass-1',
    });
    expect((await ticket(other.token)).code).toBe(Code.NOT_FOUND);
    const updated = await call(server, api.sshServer.update, {
      token,
      body: { id: serverId, terminal_users: ['someone-else'] },
    });
    expect(updated.code, updated.msg).toBe(0);
    const refused = await ticket();
    expect(refused.code).toBe(Code.FORBIDDEN);
    expect(refused.msg).toMatch(/may not open a terminal on server term-1/);
    expect((await audits('server.terminal.refused')).at(-1)).toMatchObject({ result: 'failure' });
    await call(server, api.sshServer.update, { token, body: { id: serverId, terminal_users: ['admin'] } });
  });

  it('lets a user in through one of their roles in the terminal roles, and not otherwise', async () => {
    const { roleId: operatorId, token: op } = await userWithRole(server, token, {
      role: 'Operator',
      username: 'term-op',
      password: 'Operator-Pass-1',
    });
    expect((await ticket(op)).code).toBe(Code.FORBIDDEN);
    const updated = await call(server, api.sshServer.update, {
      token,
      body: { id: serverId, terminal_roles: [operatorId] },
    });
    expect(updated.code, updated.msg).toBe(0);
    const t = await ticket(op);
    expect(t.code, t.msg).toBe(0);
    const term = new Terminal(url, t.data.ticket);
    expect(await term.until('\u0000ready')).toBe(true);
    term.type('id\n');
    expect(await term.until(uidLine)).toBe(true);
    term.ws.close();
    await term.closed;
    expect((await audits('server.terminal.start')).at(-1)).toMatchObject({ username: 'term-op' });
  });

  it('refuses a host presenting another key than the pinned one', async () => {
    await sshd.replaceHostKey();
    const t = await ticket();
    expect(t.code, t.msg).toBe(0);
    const term = new Terminal(url, t.data.ticket);
    await term.closed;
    expect(term.errors[0]).toMatch(/HOST KEY CHANGED/);
    expect(term.output).not.toContain('\u0000ready');
  });
});
