import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { renderPage } from '../test-render';
import { FormModal } from './form-modal';
import { RECLICK_LOCK_MS } from './reclick-lock';

function renderModal(onSubmit: (values: { name: string }) => Promise<unknown>, onClose = vi.fn()) {
  renderPage(
    '/m',
    '/m',
    <FormModal<{ name: string }>
      open
      title="Add"
      fields={[
        { name: 'name', label: 'Name', testId: 'name', rules: [{ required: true, message: 'Name?' }] },
      ]}
      onSubmit={onSubmit}
      onClose={onClose}
    />,
  );
  return onClose;
}

const ok = () => screen.getByTestId('form-modal-ok');

describe('FormModal', () => {
  it('does not submit an invalid form, and does not lock its button then', async () => {
    const onSubmit = vi.fn(() => Promise.resolve());
    renderModal(onSubmit);
    fireEvent.click(await screen.findByTestId('form-modal-ok'));
    expect(await screen.findByText('Name?')).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    expect(ok()).toHaveProperty('disabled', false);
  });

  it('keeps the form open when the server refuses, with OK locked against a re-click for 2 s', async () => {
    const onSubmit = vi.fn(() => Promise.reject(new Error('refused')));
    const onClose = renderModal(onSubmit);
    fireEvent.change(await screen.findByTestId('name'), { target: { value: 'x' } });
    fireEvent.click(ok());
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    await waitFor(() => expect(ok()).toHaveProperty('disabled', true));
    fireEvent.click(ok());
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(onClose).not.toHaveBeenCalled();
    await waitFor(() => expect(ok()).toHaveProperty('disabled', false), { timeout: RECLICK_LOCK_MS + 1000 });
    fireEvent.click(ok());
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(2));
  }, 10_000);

  it('closes once the submit succeeds, with the values', async () => {
    const onSubmit = vi.fn(() => Promise.resolve());
    const onClose = renderModal(onSubmit);
    fireEvent.change(await screen.findByTestId('name'), { target: { value: 'fresh' } });
    fireEvent.click(ok());
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ name: 'fresh' });
  });
});
