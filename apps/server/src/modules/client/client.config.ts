import type { Db } from '../../platform/db/database.js';
import { configEpochs } from './client.store.js';

/** How often (ms) a node reads the epochs of the domains that have waiting agents. */
export const CONFIG_POLL_MS = 300;
/** After an in-process bump, how long (ms) before the epochs are read (lets the change commit). */
const POKE_DELAY_MS = 25;

/** Why a wait ended: the domain's epoch passed the agent's version, the time ran out, or it was ended. */
export type WaitEnd = 'changed' | 'timeout' | 'ended';

interface Waiter {
  clientId: string;
  domainId: string;
  since: number;
  timer: NodeJS.Timeout;
  finish(end: WaitEnd): void;
}

/**
 * The waiting side of the config channel (README.md "Config push"): agents holding a config
 * call open, grouped by domain. While anyone waits, one query every `CONFIG_POLL_MS` reads the
 * epochs (`client_config_epoch`) of those domains, so a change made on any node wakes them; a
 * change made in this process (`poke`) reads them at once. One waiter per client: a new call
 * ends the previous one.
 */
export function createConfigWaiters(db: Db, pollMs = CONFIG_POLL_MS) {
  const byClient = new Map<string, Waiter>();
  const byDomain = new Map<string, Set<Waiter>>();
  let poller: NodeJS.Timeout | null = null;
  let reading = false;
  let again = false;

  function remove(w: Waiter) {
    clearTimeout(w.timer);
    if (byClient.get(w.clientId) === w) byClient.delete(w.clientId);
    const set = byDomain.get(w.domainId);
    if (set) {
      set.delete(w);
      if (set.size === 0) byDomain.delete(w.domainId);
    }
    if (byDomain.size === 0 && poller) {
      clearInterval(poller);
      poller = null;
    }
  }

  async function check(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const domains = [...byDomain.keys()];
        if (domains.length === 0) return;
        const rows = await configEpochs(db, domains);
        for (const row of rows) {
          const seq = Number(row.seq);
          for (const w of [...(byDomain.get(row.domain_id) ?? [])]) if (seq > w.since) w.finish('changed');
        }
      } while (again);
    } catch {
      // A failed read (database restarting, closing) is retried by the next tick.
    } finally {
      reading = false;
    }
  }

  return {
    /** How many agents wait on this node. */
    get size() {
      return byClient.size;
    },
    /** Waits until the domain's epoch is above `since`, `waitMs` passes, or the wait is ended. */
    wait(
      clientId: string,
      domainId: string,
      since: number,
      waitMs: number,
    ): { done: Promise<WaitEnd>; end(): void } {
      byClient.get(clientId)?.finish('ended');
      let finish!: (end: WaitEnd) => void;
      const done = new Promise<WaitEnd>((resolve) => {
        finish = resolve;
      });
      const w: Waiter = {
        clientId,
        domainId,
        since,
        timer: setTimeout(() => w.finish('timeout'), waitMs),
        finish: (end) => {
          remove(w);
          finish(end);
        },
      };
      byClient.set(clientId, w);
      let set = byDomain.get(domainId);
      if (!set) byDomain.set(domainId, (set = new Set()));
      set.add(w);
      if (!poller) {
        poller = setInterval(() => void check(), pollMs);
        poller.unref();
      }
      return { done, end: () => w.finish('ended') };
    },
    /** A change of this process: read the epochs of the domain's waiters now (fast path). */
    poke(domainId: string) {
      if (byDomain.has(domainId)) setTimeout(() => void check(), POKE_DELAY_MS).unref();
    },
    /** Ends every wait (shutdown): each answers unchanged. */
    endAll() {
      for (const w of [...byClient.values()]) w.finish('ended');
    },
  };
}

export type ConfigWaiters = ReturnType<typeof createConfigWaiters>;
