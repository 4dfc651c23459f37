import { v7 as uuidv7 } from 'uuid';
import type { api, QueryInput, ServerRotation } from '@ksp/contracts';
import type { SshServerRotationTable } from '../../platform/db/schema.js';
import { conflict, KspError, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { JobRun } from '../../platform/jobs/jobs.js';
import { storedError } from '../../platform/stored-message.js';
import { systemActor, systemMeta } from '../../platform/system-actor.js';
import { about, type ServerParts } from './ssh-server.scope.js';
import {
  claimRotation,
  dueRotations,
  insertRotation,
  listRotations,
  updateServer,
  type ServerRecord,
} from './ssh-server.store.js';
import { nextRotation, rotationView, type Charset } from './ssh-server.view.js';

/** A rotation still marked running after this long was left by a node that stopped: another may start. */
const STALE_ROTATION_MS = 10 * 60 * 1000;

/** The command that sets the account's new password: chpasswd as root, passwd for the account itself. */
function passwordChange(account: string, oldPassword: string, newPassword: string) {
  return account === 'root'
    ? { command: 'chpasswd', input: `root:${newPassword}\n` }
    : { command: 'LC_ALL=C passwd', input: `${oldPassword}\n${newPassword}\n${newPassword}\n` };
}

/** The output of a failed password change, without either password, on one line. */
const scrubbed = (text: string, secrets: string[]) =>
  secrets
    .reduce((out, secret) => out.split(secret).join('***'), text)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

/**
 * Password rotation (README.md): a manual or scheduled rotation of a server's password, its
 * history, and the scheduled round.
 */
export function createRotation(deps: ServerParts) {
  const { db, clock, audit, scope, connections } = deps;

  /** Logs in with `password` and out again: whether it worked. */
  const logsIn = (actor: Actor, row: ServerRecord, password: string) =>
    connections.connect(actor, row, password).then(
      (c) => {
        c.end();
        return true;
      },
      () => false,
    );

  /**
   * The change made on the server, committed as the credential's next version after a fresh
   * login with it; when that fails, the old password is put back (or, when that fails too and
   * the old one no longer logs in, the new one is kept as a rescued version) and the error thrown.
   */
  async function setPassword(
    actor: Actor,
    meta: RequestMeta,
    row: ServerRecord & { credential_id: string },
    trigger: 'manual' | 'schedule',
    record: SshServerRotationTable,
  ): Promise<void> {
    const credentials = deps.credentials();
    const credentialId = row.credential_id;
    const current = await credentials.openCurrent(actor, credentialId);
    const charset = JSON.parse(row.rotation_charset) as Charset;
    const { password: fresh } = credentials.generatePassword({ length: row.rotation_length, ...charset });
    const change = passwordChange(row.account, current.value, fresh);
    const client = await connections.connect(actor, row, current.value);
    try {
      const result = await connections.exec(row, client, change.command, change.input);
      if (result.status !== 0)
        // The output never holds the passwords (passwd does not echo; scrubbed all the same).
        throw stateForbids('server.commandFailed', {
          command: change.command,
          status: result.status ?? -1,
          output: scrubbed(`${result.stderr} ${result.stdout}`, [current.value, fresh]),
        });
      try {
        try {
          const check = await connections.connect(actor, row, fresh);
          check.end();
        } catch (err) {
          const reason = err instanceof KspError ? storedError(err) : String(err);
          throw stateForbids('server.verifyFailed', { reason });
        }
        record.version = await credentials.addRotatedVersion(
          actor,
          meta,
          credentialId,
          current.version,
          fresh,
          {
            server: row.name,
            trigger,
          },
        );
      } catch (err) {
        // The server has the new password but the credential does not: put the old one back
        // through the session still open, so that the current version logs in again.
        const back = passwordChange(row.account, fresh, current.value);
        const restored = await connections.execRaw(client, back.command, back.input).then(
          (r) => r.status === 0,
          () => false,
        );
        if (restored) throw err;
        // The old password may still be the server's (the change did not take): nothing to keep then.
        if (await logsIn(actor, row, current.value)) throw err;
        // Neither: keep the password the server now has rather than lose it.
        const latest = await credentials.describe(actor, credentialId);
        record.version = latest
          ? await credentials
              .addRotatedVersion(actor, meta, credentialId, latest.current_version, fresh, {
                server: row.name,
                trigger,
                rescued: 'yes',
              })
              .catch(() => null)
          : null;
        throw stateForbids('server.restoreFailed', {
          reason: storedError(err),
          version: record.version ?? '-',
        });
      }
    } finally {
      client.end();
    }
  }

  /**
   * One rotation: log in with the current password, set a new one, check a fresh login with
   * it, then commit it as the credential's next version. Any failure leaves the current
   * version as it was and is recorded in the history; the error is answered.
   */
  async function rotate(
    actor: Actor,
    meta: RequestMeta,
    id: string,
    trigger: 'manual' | 'schedule',
  ): Promise<ServerRotation> {
    const row = await scope.find(actor, id);
    const refused = (err: KspError) => scope.failed(actor, meta, 'server.rotate', row, err);
    if (row.auth_type !== 'password')
      throw await refused(stateForbids('server.rotationNeedsPassword', { name: row.name }));
    const started = clock();
    const stale = new Date(started.getTime() - STALE_ROTATION_MS).toISOString();
    if (!(await claimRotation(db, row.id, started.toISOString(), stale)))
      throw await refused(conflict('server.rotationBusy', { name: row.name }));

    const record: SshServerRotationTable = {
      // Time-ordered: the history's order among rotations of the same instant.
      id: uuidv7(),
      server_id: row.id,
      at: started.toISOString(),
      trigger,
      by: actor.username,
      result: 'failure',
      version: null,
      error: null,
    };
    let failure: Error | null = null;
    try {
      const { credential_id } = row;
      if (!credential_id) throw stateForbids('server.noCredential', { name: row.name });
      await setPassword(actor, meta, { ...row, credential_id }, trigger, record);
      record.result = 'success';
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
      record.error = storedError(err);
    }
    const now = clock();
    await db.transaction().execute(async (trx) => {
      await insertRotation(trx, record);
      await updateServer(trx, row.id, {
        rotating_since: null,
        last_rotation_at: record.at,
        last_rotation_result: record.result,
        next_rotation_at: row.rotation_enabled
          ? nextRotation(now, record.result === 'success' ? row.rotation_days : 1, row.rotation_hour)
          : null,
      });
      await audit.byCaller(
        trx,
        actor,
        meta,
        about(
          'server.rotate',
          row,
          {
            trigger,
            ...(record.version !== null ? { version: record.version } : {}),
            ...(failure instanceof KspError
              ? { reason: failure.messageKey }
              : failure
                ? { reason: 'internal error' }
                : {}),
          },
          record.result === 'success' ? 'success' : 'failure',
          // A failed rotation is an ERROR record: an alarm rule on `server.rotate` failures raises it.
          failure ? 'ERROR' : undefined,
        ),
      );
    });
    if (failure) throw failure;
    return rotationView(record, meta.lang);
  }

  return {
    rotate: (actor: Actor, meta: RequestMeta, id: string) => rotate(actor, meta, id, 'manual'),

    async rotations(actor: Actor, meta: RequestMeta, query: QueryInput<typeof api.sshServer.rotations>) {
      const row = await scope.find(actor, query.id);
      const { rows, total } = await listRotations(db, row.id, query);
      return { data: rows.map((r) => rotationView(r, meta.lang)), total };
    },

    /** The scheduled round (one node of the cluster, by the job's lease): every due server, each in its domain. */
    async runScheduled(run: JobRun<unknown>): Promise<number> {
      const due = await dueRotations(db, clock().toISOString());
      let done = 0;
      for (const server of due) {
        run.signal.throwIfAborted();
        const actor = systemActor({
          username: 'scheduler',
          domainId: server.domain_id,
          domainName: server.domain_name,
        });
        // A failure is in the history and the audit (ERROR); the round goes on with the next server.
        await rotate(actor, systemMeta(), server.id, 'schedule').then(
          () => done++,
          () => undefined,
        );
      }
      return done;
    },
  };
}
