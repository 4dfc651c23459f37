import { describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { api } from '@ksp/contracts';
import { AppProviders, createQueryClient } from '../app/providers';
import { KeepAliveOutlet } from '../app/layout/keep-alive-outlet';
import { renderPage } from '../test-render';
import { saveSignedIn } from '../api/session';
import { signedInFixture } from '../test-fixtures';
import { RowActions, useColumnKit } from './columns';
import { ListPage, listTestIds, type ListQuery } from './list-page';
import { canAccess, useCanCall } from './permissions';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

interface Row {
  id: string;
  name: string;
  created_at: string;
}

const row = (id: string): Row => ({ id, name: `row-${id}`, created_at: '2026-01-10T12:00:00Z' });

function Page({
  fetchPage,
  onDelete,
}: {
  fetchPage: (q: ListQuery) => Promise<{ data: Row[]; total: number; total_capped?: boolean }>;
  onDelete?: (ids: string[]) => Promise<unknown>;
}) {
  const kit = useColumnKit<Row>();
  const onEdit = vi.fn();
  return (
    <ListPage<Row>
      queryKey={['test']}
      fetchPage={fetchPage}
      rowKey="id"
      rowTestId={(r) => `row-${r.id}`}
      columns={[
        kit.name('Name', 'name'),
        kit.time('Created', 'created_at'),
        kit.actions((r) => (
          <RowActions
            items={[
              { label: 'Edit', onClick: onEdit, testId: `edit-${r.id}` },
              { label: 'Hidden', onClick: onEdit, testId: `hidden-${r.id}`, show: false },
            ]}
          />
        )),
      ]}
      filters={[{ name: 'name', label: 'Name' }]}
      onDelete={onDelete}
    />
  );
}

describe('ListPage', () => {
  it('says "1 item" for one row (en plural), shows the kit columns and leaves out hidden actions', async () => {
    const one = vi.fn(() => Promise.resolve({ data: [row('a')], total: 1 }));
    renderPage('/list', '/list', <Page fetchPage={one} />);
    expect((await screen.findByTestId('list-total')).textContent).toBe('1 item');
    expect(within(screen.getByTestId('row-a')).getByText('row-a')).toBeTruthy();
    expect(within(screen.getByTestId('row-a')).getByTestId('edit-a')).toBeTruthy();
    expect(screen.queryByTestId('hidden-a')).toBeNull();
    expect(one).toHaveBeenCalledWith({ page: 1, page_size: 20, filters: {} });
  });

  it('counts more rows in the plural and reads filters from the URL', async () => {
    const two = vi.fn(() => Promise.resolve({ data: [row('a'), row('b')], total: 2 }));
    renderPage('/list?name=x&page=2', '/list', <Page fetchPage={two} />);
    expect((await screen.findByTestId('list-total')).textContent).toBe('2 items');
    expect(two).toHaveBeenCalledWith({ page: 2, page_size: 20, filters: { name: 'x' } });
  });

  it('says the total is a lower bound when the server stopped counting', async () => {
    const capped = vi.fn(() => Promise.resolve({ data: [row('a')], total: 10_000, total_capped: true }));
    renderPage('/list?name=a', '/list', <Page fetchPage={capped} />);
    expect((await screen.findByTestId('list-total')).textContent).toBe('10000+ items');
  });

  it('drops a deleted row from the selection after the refresh', async () => {
    let rows = [row('a'), row('b')];
    const onDelete = vi.fn((ids: string[]) => {
      rows = rows.filter((r) => !ids.includes(r.id));
      return Promise.resolve();
    });
    renderPage(
      '/list',
      '/list',
      <Page fetchPage={() => Promise.resolve({ data: rows, total: rows.length })} onDelete={onDelete} />,
    );
    await screen.findByTestId('row-a');
    fireEvent.click(within(screen.getByTestId('row-a')).getByRole('checkbox'));
    expect(screen.getByTestId('list-selected').textContent).toBe('1 selected');
    fireEvent.click(screen.getByTestId('batch-delete'));
    fireEvent.click(await screen.findByTestId('confirm-delete'));
    await waitFor(() => expect(screen.queryByTestId('row-a')).toBeNull());
    expect(onDelete).toHaveBeenCalledWith(['a']);
    expect(screen.queryByTestId('list-selected')).toBeNull();
  });

  it('keeps its filter form in step with the URL: reset empties it, Back brings the earlier search', async () => {
    const rows = vi.fn(() => Promise.resolve({ data: [row('a')], total: 1 }));
    const { router } = renderPage('/list?name=first', '/list', <Page fetchPage={rows} />);
    await screen.findByTestId('row-a');
    const input = () => screen.getByTestId<HTMLInputElement>('list-search');
    expect(input().value).toBe('first');
    fireEvent.change(input(), { target: { value: 'second' } });
    fireEvent.click(screen.getByTestId('list-search-submit'));
    await waitFor(() => expect(router.state.location.search).toBe('?name=second'));
    // Back once the second search is on the page, as a user sees it: on a loaded machine the
    // router may otherwise go forward and back before the page ever shows the second search.
    await waitFor(() =>
      expect(rows).toHaveBeenCalledWith({ page: 1, page_size: 20, filters: { name: 'second' } }),
    );
    await act(() => router.navigate(-1));
    await waitFor(() => expect(router.state.location.search).toBe('?name=first'));
    await waitFor(() => expect(input().value).toBe('first'));
    fireEvent.click(screen.getByRole('button', { name: 'Reset' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    await waitFor(() => expect(input().value).toBe(''));
  });

  it('keeps a typed, not yet searched filter when its kept-alive tab is shown again', async () => {
    const rows = () => Promise.resolve({ data: [row('a')], total: 1 });
    const router = createMemoryRouter(
      [
        {
          element: <KeepAliveOutlet cachedViews={['list', 'other']} />,
          children: [
            { path: '/list', handle: { name: 'list', title: 'list' }, element: <Page fetchPage={rows} /> },
            { path: '/other', handle: { name: 'other', title: 'other' }, element: <p>other</p> },
          ],
        },
      ],
      { initialEntries: ['/list'] },
    );
    render(
      <AppProviders queryClient={createQueryClient()}>
        <RouterProvider router={router} />
      </AppProviders>,
    );
    await screen.findByTestId('row-a');
    const input = () => screen.getByTestId<HTMLInputElement>('list-search');
    fireEvent.change(input(), { target: { value: 'typed' } });
    await act(() => router.navigate('/other'));
    await act(() => router.navigate('/list'));
    // Showing the view again re-runs its effects: they must not reset the form.
    await waitFor(() =>
      expect(input().closest<HTMLElement>('[data-testid="list-page"]')?.style.display).toBe(''),
    );
    expect(input().value).toBe('typed');
  });

  it('names its parts after a prefix, or with the generic ids', () => {
    expect(listTestIds('key').filter('state', 1)).toBe('key-filter-state');
    expect(listTestIds('key').card).toBe('key-list');
    expect(listTestIds(undefined).filter('name', 0)).toBe('list-search');
    expect(listTestIds(undefined).filter('status', 1)).toBe('filter-status');
  });
});

describe('useCanCall', () => {
  it('answers from the access of the contract call', () => {
    const held = new Set(['key:read']);
    expect(canAccess('public', false, held)).toBe(true);
    expect(canAccess('session', false, held)).toBe(false);
    expect(canAccess('session', true, held)).toBe(true);
    expect(canAccess(api.key.list.access, true, held)).toBe(true);
    expect(canAccess(api.key.export.access, true, held)).toBe(false);
    expect(canAccess(api.key.list.access, false, held)).toBe(false);
  });

  it('reads the signed-in user', async () => {
    saveSignedIn(signedInFixture({ permissions: ['key:export'] }));
    function Probe() {
      return (
        <p>
          {String(useCanCall(api.key.export))}/{String(useCanCall(api.key.create))}
        </p>
      );
    }
    renderPage('/p', '/p', <Probe />);
    expect(await screen.findByText('true/false')).toBeTruthy();
  });
});
