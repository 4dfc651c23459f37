import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { renderPage } from '../test-render';
import { useConfirm } from './confirm-delete';

function Opener({ onOk }: { onOk: () => Promise<unknown> }) {
  const confirm = useConfirm();
  return (
    <button type="button" onClick={() => confirm({ title: 'Sure?', okText: 'Go', onOk })}>
      open
    </button>
  );
}

describe('useConfirm', () => {
  it('runs the work once however often OK is clicked', async () => {
    let finish = () => undefined as void;
    const onOk = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    renderPage('/c', '/c', <Opener onOk={onOk} />);
    fireEvent.click(await screen.findByText('open'));
    const ok = await screen.findByTestId('confirm-ok');
    fireEvent.click(ok);
    fireEvent.click(ok);
    fireEvent.click(ok);
    expect(onOk).toHaveBeenCalledTimes(1);
    finish();
    await waitFor(() => expect(onOk).toHaveBeenCalledTimes(1));
  });
});
