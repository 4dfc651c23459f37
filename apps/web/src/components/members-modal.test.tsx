import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { renderPage } from '../test-render';
import { MembersModal, type MembersModalProps } from './members-modal';

type Member = { id: string; name: string };

function renderMembers(overrides: Partial<MembersModalProps<Member>> = {}) {
  const props: MembersModalProps<Member> = {
    open: true,
    title: 'Members',
    members: [{ id: '1', name: 'alice' }],
    canRemove: true,
    canAdd: true,
    picker: ({ onChange, exclude, testId }) => (
      <button
        type="button"
        data-testid={testId}
        data-exclude={exclude.join(',')}
        onClick={() => onChange(['2'])}
      >
        pick
      </button>
    ),
    addText: 'Add',
    removeConfirm: (member) => `Remove ${member.name}?`,
    onAdd: vi.fn(() => Promise.resolve()),
    onRemove: vi.fn(() => Promise.resolve()),
    onChanged: vi.fn(() => Promise.resolve()),
    onClose: vi.fn(),
    testId: 'm',
    ...overrides,
  };
  renderPage('/m', '/m', <MembersModal {...props} />);
  return props;
}

describe('MembersModal', () => {
  it('adds the picked ids (members excluded from the picker) and refreshes', async () => {
    const props = renderMembers();
    expect(within(await screen.findByTestId('m-list')).getByText('alice')).toBeTruthy();
    expect(screen.getByTestId('m-select').dataset.exclude).toBe('1');
    fireEvent.click(screen.getByTestId('m-add'));
    expect(props.onAdd).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('m-select'));
    fireEvent.click(screen.getByTestId('m-add'));
    await waitFor(() => expect(props.onAdd).toHaveBeenCalledWith(['2']));
    await waitFor(() => expect(props.onChanged).toHaveBeenCalledTimes(1));
  });

  it('removes after the confirmation and refreshes even when refused', async () => {
    const props = renderMembers({ onRemove: vi.fn(() => Promise.reject(new Error('last domain'))) });
    fireEvent.click(await screen.findByTestId('m-remove-alice'));
    expect(await screen.findByText('Remove alice?')).toBeTruthy();
    fireEvent.click(screen.getByTestId('m-remove-ok'));
    await waitFor(() => expect(props.onRemove).toHaveBeenCalledWith({ id: '1', name: 'alice' }));
    await waitFor(() => expect(props.onChanged).toHaveBeenCalledTimes(1));
  });

  it('offers neither remove nor add to a reader', async () => {
    renderMembers({ canRemove: false, canAdd: false });
    await screen.findByTestId('m-list');
    expect(screen.queryByTestId('m-remove-alice')).toBeNull();
    expect(screen.queryByTestId('m-add')).toBeNull();
    expect(screen.queryByTestId('m-select')).toBeNull();
  });
});
