import { describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { Modal, theme } from 'antd';
import { AppProviders, createQueryClient } from './providers';

/** A media query list for `matches`, whose change listeners the test can call. */
function mediaQueries(reduced: boolean) {
  const listeners = new Set<() => void>();
  const state = { reduced };
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches: query === '(prefers-reduced-motion: reduce)' && state.reduced,
        media: query,
        addEventListener: (_: string, listener: () => void) => listeners.add(listener),
        removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
        addListener() {},
        removeListener() {},
      }) as unknown as MediaQueryList,
  );
  return {
    set(next: boolean) {
      state.reduced = next;
      act(() => listeners.forEach((listener) => listener()));
    },
  };
}

function openDialog() {
  render(
    <AppProviders queryClient={createQueryClient()}>
      <Modal open title="Dialog">
        body
      </Modal>
    </AppProviders>,
  );
  return screen.getByRole('dialog');
}

/** Shows antd's motion token as the providers set it. */
function MotionToken() {
  const { token } = theme.useToken();
  return <span data-testid="motion">{String(token.motion)}</span>;
}

/** antd fades a dialog's mask in with its motion classes (`ant-fade-…`) while it animates. */
const animating = () => /\bant-fade\b/.test(document.querySelector('.ant-modal-mask')?.className ?? '');

describe('reduced motion', () => {
  it('animates dialogs unless the system asks for less motion', () => {
    mediaQueries(false);
    openDialog();
    expect(animating()).toBe(true);
  });

  it('opens dialogs without animation when the system asks for less motion', () => {
    mediaQueries(true);
    expect(openDialog().textContent).toContain('body');
    expect(animating()).toBe(false);
  });

  it('follows the setting while the console is open', () => {
    const media = mediaQueries(true);
    render(
      <AppProviders queryClient={createQueryClient()}>
        <MotionToken />
      </AppProviders>,
    );
    expect(screen.getByTestId('motion').textContent).toBe('false');
    media.set(false);
    expect(screen.getByTestId('motion').textContent).toBe('true');
  });
});
