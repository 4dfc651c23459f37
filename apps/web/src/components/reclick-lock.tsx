import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import { Button, type ButtonProps } from 'antd';

export const RECLICK_LOCK_MS = 2000;

/** After `lock()` the returned `locked` stays true for `ms` milliseconds (2000 by default). */
export function useReclickLock(ms: number = RECLICK_LOCK_MS): { locked: boolean; lock: () => void } {
  const [locked, setLocked] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const lock = useCallback(() => {
    setLocked(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setLocked(false), ms);
  }, [ms]);

  useEffect(() => () => clearTimeout(timer.current), []);
  return { locked, lock };
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
