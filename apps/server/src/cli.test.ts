import { afterEach, describe, expect, it } from 'vitest';
import { api } from '@ksp/contracts';
import { ADMIN, call, initialize, login, startServer, type TestServer } from './test/harness.js';
import { runCli } from './test/cli.js';

describe('ksp CLI', () => {
  let server: TestServer;
  afterEach(async () => server?.close());

  it('initializes and activates a running server unattended, printing each component once', async () => {
    server = await startServer('sqlite');
    const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const missing = await runCli([
      'init',
      '--url',
      url,
      '--admin',
      'root-admin',
      '--email',
      'ra@example.test',
    ]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--password-env');

    const done = await runCli(
      [
        'init',
        '--url',
        url,
        '--components',
        '2',
        '--admin',
        'root-admin',
        '--email',
        'ra@example.test',
        '--password-env',
        'PW',
      ],
      { PW: 'Cli-Admin-9' },
    );
    expect(done.stderr).toBe('');
    expect(done.status).toBe(0);
    const lines = done.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^component 1\/2: ([0-9A-F]{8} ){8} KCV [0-9A-F]{6}$/);
    expect(lines[1]).toMatch(/^component 2\/2: /);
    expect(lines[2]).toMatch(/^root key KCV [0-9A-F]{6}; sealed by .*seal\.key/);
    expect(lines[3]).toBe("activated: administrator 'root-admin' created");
    expect(done.stdout).not.toContain('Cli-Admin-9');

    expect((await call(server, api.system.status)).data).toMatchObject({
      initialized: true,
      activated: true,
    });
    expect(await login(server, 'root-admin', 'Cli-Admin-9')).toBeTruthy();
    const again = await runCli(
      ['init', '--url', url, '--admin', 'x', '--email', 'x@example.test', '--password-env', 'PW'],
      { PW: 'x' },
    );
    expect(again.stdout).toContain('already initialized');
    expect(again.stdout).toContain('already activated');
  });

  // Three runs of the CLI, each a process of its own: a minute or more on a loaded machine.
  it('sends the setup code of a server on a network address, given or read from its data directory', async () => {
    server = await startServer('sqlite', {}, undefined, undefined, {
      config: (c) => ({ ...c, host: '0.0.0.0' }),
    });
    const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const args = ['init', '--url', url, '--admin', 'net-admin', '--email', 'na@example.test'];
    const env = { PW: 'Cli-Admin-9', KSP_DATA_DIR: '/nonexistent' };
    const refused = await runCli([...args, '--password-env', 'PW'], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--setup-code');
    const wrong = await runCli([...args, '--password-env', 'PW', '--setup-code', 'not-it'], env);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('setup_code: the one-time setup code is missing or wrong');
    const done = await runCli([...args, '--password-env', 'PW', '--data-dir', server.dataDir], env);
    expect(done.stderr).toBe('');
    expect(done.stdout).toContain("activated: administrator 'net-admin' created");
    expect((await call(server, api.system.status)).data).toMatchObject({
      activated: true,
      setup_code_required: false,
    });
  }, 120_000);

  it('log-verify walks the audit chains, and exits 1 naming the first broken link after tampering', async () => {
    server = await startServer('sqlite');
    await initialize(server);
    const url = await server.app.listen({ host: '127.0.0.1', port: 0 });
    await server.services.logs.seal();
    const args = ['log-verify', '--url', url, '--user', ADMIN.username, '--password-env', 'PW'];
    const ok = await runCli(args, { PW: ADMIN.password });
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^root: ok, \d+ records/m);
    const victim = await server.database.db
      .selectFrom('audit_log')
      .select(['id', 'chain_seq'])
      .where('action', '=', 'system.activate')
      .executeTakeFirstOrThrow();
    await server.database.db
      .updateTable('audit_log')
      .set({ target: 'someone-else' })
      .where('id', '=', victim.id)
      .execute();
    const broken = await runCli(args, { PW: ADMIN.password });
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(
      `root: BROKEN at ${Number(victim.chain_seq)} (changed, record ${victim.id}`,
    );
    const noPassword = await runCli(['log-verify', '--url', url, '--user', ADMIN.username]);
    expect(noPassword.status).toBe(1);
    expect(noPassword.stderr).toContain('--password-env');
  });
});
