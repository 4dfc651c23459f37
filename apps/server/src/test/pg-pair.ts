import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/** Runs a PostgreSQL program as the `postgres` account (the server refuses to run as root). */
async function asPostgres(program: string, args: string[]): Promise<string> {
  const root = process.getuid?.() === 0;
  const { stdout } = await run(
    root ? 'runuser' : join(BIN, program),
    root ? ['-u', 'postgres', '--', join(BIN, program), ...args] : args,
    {
      timeout: 60_000,
      encoding: 'utf8',
    },
  );
  return stdout;
}

export interface PgServer {
  port: number;
  dir: string;
  start(): Promise<void>;
  /** Stops at once, as a crash would (no shutdown checkpoint). */
  crash(): Promise<void>;
  promote(): Promise<void>;
  /** Stops the server's processes where they stand (SIGSTOP): a hung machine, as the network sees it. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
}

/** The postmaster's and its children's process ids. */
async function processesOf(dir: string): Promise<number[]> {
  const postmaster = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const { stdout } = await run('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).catch(() => ({
    stdout: '',
  }));
  return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)];
}

/**
 * Two PostgreSQL 15 servers of the test's own on loopback: a primary and a streaming standby of
 * it (pg_basebackup -R), each with its own data directory and port; never the machine's own
 * instance. For tests of following a failover (the standby promoted after the primary is gone).
 */
export async function startPgPair(): Promise<{
  primary: PgServer;
  standby: PgServer;
  url: string;
  stop(): Promise<void>;
}> {
  const base = mkdtempSync(join(tmpdir(), 'ksp-pgpair-'));
  chmodSync(base, 0o755);
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const { stdout: gid } = await run('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(base, Number(stdout.trim()), Number(gid.trim()));
  }
  const server = (name: string, port: number): PgServer => {
    const dir = join(base, name);
    return {
      port,
      dir,
      start: async () => {
        await asPostgres('pg_ctl', [
          '-D',
          dir,
          '-l',
          join(base, `${name}.log`),
          '-o',
          `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB`,
          '-w',
          'start',
        ]);
      },
      crash: async () => {
        await asPostgres('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
      },
      promote: async () => {
        await asPostgres('pg_ctl', ['-D', dir, '-w', 'promote']);
      },
      freeze: async () => {
        for (const pid of await processesOf(dir)) process.kill(pid, 'SIGSTOP');
      },
      thaw: async () => {
        for (const pid of await processesOf(dir)) process.kill(pid, 'SIGCONT');
      },
    };
  };
  const primary = server('primary', await freePort());
  const standby = server('standby', await freePort());
  await asPostgres('initdb', ['-D', primary.dir, '--auth=trust', '-U', 'postgres', '--no-sync']);
  await primary.start();
  await asPostgres('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    standby.dir,
    '-R',
    '-X',
    'stream',
    '--no-sync',
  ]);
  await standby.start();
  const stopAll = async () => {
    for (const s of [primary, standby]) {
      await s.thaw().catch(() => undefined);
      await s.crash().catch(() => undefined);
    }
    rmSync(base, { recursive: true, force: true });
  };
  return {
    primary,
    standby,
    url: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
    stop: stopAll,
  };
}
