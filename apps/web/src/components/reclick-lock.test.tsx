import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Activity } from 'react';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { LockButton, RECLICK_LOCK_MS } from './reclick-lock';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('re-click lock', () => {
  it('disables the button for 2000 ms after a click by default', () => {
    const onClick = vi.fn();
    render(<LockButton onClick={onClick}>Go</LockButton>);
    const button = screen.getByRole('button', { name: 'Go' });
    fireEvent.click(button);
    act(() => {
      vi.advanceTimersByTime(0);
    });
    expect(onClick).toHaveBeenCalledTimes(1);
    expect(button).toHaveProperty('disabled', true);
    fireEvent.click(button);
    expect(onClick).toHaveBeenCalledTimes(1);
    act(() => {
      vi.advanceTimersByTime(RECLICK_LOCK_MS - 1);
    });
    expect(button).toHaveProperty('disabled', true);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(button).toHaveProperty('disabled', false);
    expect(RECLICK_LOCK_MS).toBe(2000);
  });

  it('takes a given lock time', () => {
    render(<LockButton lockMs={500}>Go</LockButton>);
    const button = screen.getByRole('button', { name: 'Go' });
    fireEvent.click(button);
    act(() => {
      vi.advanceTimersByTime(0);
    });
    act(() => {
      vi.advanceTimersByTime(499);
    });
    expect(button).toHaveProperty('disabled', true);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(button).toHaveProperty('disabled', false);
  });

  it('still submits its form', () => {
    const onSubmit = vi.fn((event: Event) => event.preventDefault());
    render(
      <form onSubmit={(event) => onSubmit(event.nativeEvent)}>
        <LockButton htmlType="submit">Send</LockButton>
      </form>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });

  it('ends on time for a page that was hidden (kept alive) while locked', () => {
    const view = (mode: 'visible' | 'hidden') => (
      <Activity mode={mode}>
        <LockButton>Go</LockButton>
      </Activity>
    );
    const { rerender } = render(view('visible'));
    fireEvent.click(screen.getByRole('button', { name: 'Go' }));
    act(() => {
      vi.advanceTimersByTime(0);
    });
    // Hidden: its effects stop (a running timer would be lost with them).
    rerender(view('hidden'));
    act(() => {
      vi.advanceTimersByTime(RECLICK_LOCK_MS * 2);
    });
    rerender(view('visible'));
    act(() => {
      vi.advanceTimersByTime(0);
    });
    expect(screen.getByRole('button', { name: 'Go' })).toHaveProperty('disabled', false);
  });

  it('stays disabled when the caller disables it', () => {
    render(<LockButton disabled>Go</LockButton>);
    expect(screen.getByRole('button', { name: 'Go' })).toHaveProperty('disabled', true);
  });
});
