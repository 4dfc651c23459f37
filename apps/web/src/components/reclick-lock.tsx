import { useCallback, useEffect, useState, type MouseEvent } from 'react';
import { Button, type ButtonProps } from 'antd';

export const RECLICK_LOCK_MS = 2000;

/**
 * After `lock()` the returned `locked` stays true for `ms` milliseconds (2000 by default).
 * The lock keeps its deadline, not a running timer: a page kept alive in a hidden tab has
 * its effects stopped, and on its return the lock ends at the deadline (or at once).
 */
export function useReclickLock(ms: number = RECLICK_LOCK_MS): { locked: boolean; lock: () => void } {
  const [until, setUntil] = useState(0);

  const lock = useCallback(() => setUntil(Date.now() + ms), [ms]);

  useEffect(() => {
    if (until === 0) return;
    const timer = setTimeout(() => setUntil(0), Math.max(0, until - Date.now()));
    return () => clearTimeout(timer);
  }, [until]);

  return { locked: until !== 0, lock };
}

export type LockButtonProps = ButtonProps & { lockMs?: number };

/** A button disabled for `lockMs` (2000 ms by default) after each click. */
export function LockButton({ lockMs, onClick, disabled, ...props }: LockButtonProps) {
  const { locked, lock } = useReclickLock(lockMs);
  const handleClick = (event: MouseEvent<HTMLElement>) => {
    onClick?.(event);
    // Disable after the click's default action: a submit button disabled during its own
    // click event would not submit its form.
    setTimeout(lock, 0);
  };
  return <Button {...props} disabled={disabled || locked} onClick={handleClick} />;
}
