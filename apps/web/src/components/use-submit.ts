import { useState } from 'react';
import { RECLICK_LOCK_MS, useReclickLock } from './reclick-lock';

/**
 * The one submit path of the console's forms: `submitting` while the work runs, then the
 * re-click lock (a button that submitted stays disabled for 2 s), and the form kept open
 * when the work fails (the API client already showed the server's message).
 */
export function useSubmit(lockMs: number = RECLICK_LOCK_MS) {
  const [submitting, setSubmitting] = useState(false);
  const { locked, lock } = useReclickLock(lockMs);
  const run = async (work: () => Promise<unknown>, onDone?: () => void): Promise<boolean> => {
    if (submitting || locked) return false;
    setSubmitting(true);
    lock();
    try {
      await work();
      onDone?.();
      return true;
    } catch {
      return false;
    } finally {
      setSubmitting(false);
    }
  };
  /** Props of the submitting button: loading while busy, disabled while locked. */
  const buttonProps = { loading: submitting, disabled: locked && !submitting };
  return { submitting, locked, run, buttonProps };
}
