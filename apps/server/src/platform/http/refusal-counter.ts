/**
 * Refused calls per source address in the current minute, for a limit past which an address is
 * answered HTTP 429 before any check (agent calls, agents' log uploads). Counted synchronously
 * when a refusal is decided and checked synchronously, so parallel forged calls cannot all pass
 * the limit. Per node; forgotten wholesale when it holds 10,000 addresses.
 */
export class RefusalCounter {
  private readonly seen = new Map<string, { minute: number; count: number }>();

  constructor(
    /** Refusals an address may have in a minute before it is turned away. */
    readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  private minute() {
    return Math.floor(this.now() / 60_000);
  }

  /** Counts one refusal of `ip`. */
  count(ip: string): void {
    const minute = this.minute();
    const seen = this.seen.get(ip);
    if (seen && seen.minute === minute) {
      seen.count++;
      return;
    }
    if (this.seen.size >= 10_000) this.seen.clear();
    this.seen.set(ip, { minute, count: 1 });
  }

  /**
   * Whether `ip` is past the limit this minute: 'first' for the first call turned away in the
   * minute (the one to audit), 'again' for the next ones, 'no' when the call may go on.
   */
  overLimit(ip: string): 'no' | 'first' | 'again' {
    const seen = this.seen.get(ip);
    if (!seen || seen.minute !== this.minute() || seen.count < this.perMinute) return 'no';
    return ++seen.count === this.perMinute + 1 ? 'first' : 'again';
  }
}
