import type { LogSeverity, SyslogFormat, SyslogProtocol, SyslogStream } from '@ksp/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { SyslogServerTable } from '../../platform/db/schema.js';
import type { SecretBox } from '../../platform/keyring/secret-box.js';
import type { ModuleServices } from '../../platform/module.js';
import { formatClientMessage, formatMessage, type ClientSyslogEvent } from './syslog.format.js';
import {
  chainHeads,
  chainRecords,
  countDelivered,
  countFailure,
  domainNames,
  enabledServers,
  insertPosition,
  movePosition,
  positionOf,
} from './syslog.store.js';
import { deliver, type Receiver } from './syslog.transport.js';

/** Records read and sent per chain per round. */
const BATCH = 500;
/** Backoff after failures: 5 s, doubling, at most 5 minutes. */
const backoffSeconds = (failures: number) => Math.min(300, 5 * 2 ** Math.max(0, failures - 1));
const ALARM_SEVERITIES: readonly LogSeverity[] = ['ERROR', 'CRITICAL'];
/**
 * The `alarm` stream: records of severity ERROR or CRITICAL, and the alarm area's records
 * (`alarm.raise` above all) whatever their severity.
 */
const isAlarmRecord = (r: { severity: string; area: string }) =>
  r.area === 'alarm' || ALARM_SEVERITIES.includes(r.severity as LogSeverity);

/** The position key of the client records in `syslog_position` (chains are domain ids or ''). */
export const CLIENT_CHAIN = 'client';

export const streamsOf = (row: SyslogServerTable) => JSON.parse(row.streams) as SyslogStream[];

/** Where a receiver is and how to reach it (its client key opened from the secret box). */
export async function receiverOf(secrets: SecretBox, row: SyslogServerTable): Promise<Receiver> {
  return {
    host: row.host,
    port: row.port,
    protocol: row.protocol as SyslogProtocol,
    ca: row.ca_cert,
    cert: row.client_cert,
    key: row.client_key && row.key_domain ? await secrets.open(row.key_domain, row.id, row.client_key) : null,
  };
}

/**
 * The delivery round (README.md "The outbox is the audit chain"): for each enabled receiver
 * not in backoff, what it has not had yet, chain by chain, delivered before its position moves.
 */
export function createSyslogForwarder(deps: {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  nodeName: string;
  log?: FastifyBaseLogger | undefined;
  clientLogs?: (() => ModuleServices['clientLogs']) | undefined;
}) {
  const { db, clock } = deps;
  const now = () => clock().toISOString();

  /** Sends what one receiver has not had yet, chain by chain; stops at the first failure. */
  async function forwardTo(row: SyslogServerTable, names: Map<string, string>): Promise<number> {
    const streams = streamsOf(row);
    const wantsAll = streams.includes('server');
    const wantsAlarms = streams.includes('alarm');
    const receiver = await receiverOf(deps.secrets, row);
    let sent = 0;
    for (const head of await chainHeads(db)) {
      for (;;) {
        const position = await positionOf(db, row.id, head.chain);
        const from = Number(position?.seq ?? 0);
        if (from >= Number(head.seq)) break;
        const records = await chainRecords(db, head.chain, from, Number(head.seq), BATCH);
        if (records.length === 0) break;
        const picked = records.filter((r) => wantsAll || (wantsAlarms && isAlarmRecord(r)));
        const messages = picked.map((r) =>
          formatMessage(
            row.format as SyslogFormat,
            {
              id: r.id,
              sequence: `${head.chain || 'system'}:${Number(r.chain_seq)}`,
              at: r.at,
              severity: r.severity as LogSeverity,
              action: r.action,
              target: r.target,
              result: r.result,
              username: r.username,
              domain: r.domain_id ? (names.get(r.domain_id) ?? r.domain_name) : '',
              source: r.source,
              ip: r.source_ip,
              count: Number(r.count),
              details: r.details,
            },
            deps.nodeName,
          ),
        );
        // Delivered first, then the position moves: a failure leaves these for the next round.
        await deliver(receiver, messages);
        await moved(row, head.chain, position !== undefined, Number(records.at(-1)!.chain_seq), {
          sent: picked.length,
          always: true,
        });
        sent += picked.length;
        if (records.length < BATCH) break;
      }
    }
    if (deps.clientLogs) sent += await forwardClientRecords(row, receiver, streams.includes('client'), names);
    return sent;
  }

  /**
   * Moves a receiver's position in a chain (`known`: it had one) and counts what was sent, in
   * one transaction; the count (which clears the failures) is skipped when nothing was sent
   * unless `always`.
   */
  async function moved(
    row: SyslogServerTable,
    chain: string,
    known: boolean,
    seq: number,
    count: { sent: number; always: boolean },
  ) {
    await db.transaction().execute(async (trx) => {
      if (known) await movePosition(trx, row.id, chain, seq);
      else await insertPosition(trx, row.id, chain, seq);
      if (count.sent > 0 || count.always)
        await countDelivered(trx, row.id, count.sent, count.sent > 0 ? now() : null);
    });
  }

  /**
   * The client stream: records after the receiver's position (chain `client`), in order of
   * receipt. A receiver without a position yet starts at the newest record; one that does not
   * take the stream keeps its position, which `update` moves to the newest record when the
   * stream is taken, so that it starts from then, not from the first record kept.
   */
  async function forwardClientRecords(
    row: SyslogServerTable,
    receiver: Receiver,
    wanted: boolean,
    names: Map<string, string>,
  ): Promise<number> {
    const clientLogs = deps.clientLogs!();
    let sent = 0;
    for (;;) {
      const position = await positionOf(db, row.id, CLIENT_CHAIN);
      if (!position) {
        await moved(row, CLIENT_CHAIN, false, await clientLogs.lastSeq(), { sent: 0, always: false });
        return sent;
      }
      // Not taken: the position stays (taking the stream moves it, in `update`). Moving it here
      // could skip records written after an update this round's row predates.
      if (!wanted) return sent;
      const records = await clientLogs.recordsAfter(Number(position.seq), BATCH);
      if (records.length === 0) return sent;
      const messages = records.map((r) => {
        const event: ClientSyslogEvent = {
          id: r.id,
          sequence: `${CLIENT_CHAIN}:${Number(r.seq)}`,
          receivedAt: r.received_at,
          agentAt: r.agent_at,
          level: r.level as ClientSyslogEvent['level'],
          action: r.action,
          effect: r.effect,
          policy: r.policy,
          guardPoint: r.guard_point,
          osUser: r.os_user,
          process: r.process,
          resource: r.resource,
          clientId: r.client_id,
          clientName: r.client_name,
          clientOs: r.client_os,
          ip: r.client_ip,
          domain: names.get(r.domain_id) ?? '',
          details: r.details,
        };
        return formatClientMessage(row.format as SyslogFormat, event, deps.nodeName);
      });
      // Delivered first, then the position moves: a failure leaves these for the next round.
      await deliver(receiver, messages);
      await moved(row, CLIENT_CHAIN, true, Number(records.at(-1)!.seq), {
        sent: records.length,
        always: false,
      });
      sent += records.length;
      if (records.length < BATCH) return sent;
    }
  }

  async function forwardRound(): Promise<number> {
    const rows = await enabledServers(db);
    const names = await domainNames(db);
    let total = 0;
    for (const row of rows) {
      if (row.failures > 0 && row.last_error_at) {
        const retryAt = Date.parse(row.last_error_at) + backoffSeconds(row.failures) * 1000;
        if (clock().getTime() < retryAt) continue;
      }
      try {
        total += await forwardTo(row, names);
      } catch (err) {
        const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
        await countFailure(db, row.id, message, now());
        deps.log?.warn({ receiver: row.name, err: message }, 'syslog delivery failed');
      }
    }
    return total;
  }

  /** The delivery round under way or last run (`forward`). */
  let rounds: Promise<number> = Promise.resolve(0);

  return {
    /**
     * The delivery round (the `syslog.forward` job): every enabled receiver not in backoff.
     * Rounds of this process run one after another (a round asked for while one runs starts
     * when it ends): two at once would both send the records past the same stored position.
     */
    forward(): Promise<number> {
      const next = rounds.catch(() => 0).then(forwardRound);
      rounds = next;
      return next;
    },
  };
}
