import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { accessTree } from './permission-tree.fixture';
import RolePage from './role-page';
import { answerWith, signedInEachTest } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

const tree = accessTree;

const role = (name: string, type: 'built-in' | 'custom', permissions: string[]) => ({
  id: `00000000-0000-4000-8000-${String(name.length).padStart(12, '0')}`,
  name,
  description: '',
  type,
  type_description: '',
  permissions,
  users: [],
  created_at: '2026-01-01T00:00:00Z',
});

const rows = [
  role('Administrator', 'built-in', ['user:read', 'user:write', 'role:read']),
  role('Help', 'custom', ['user:read']),
];

function serve(refuseDelete = false) {
  return answerWith((config) => {
    if (config.url === api.role.delete.path && refuseDelete)
      return envelope(null, 4220, "Role 'Help' is still held by 2 users");
    if (config.url === api.role.list.path) return envelope({ data: rows, total: rows.length });
    if (config.url === api.role.permissionTree.path) return envelope(tree);
    if (config.url === api.role.create.path) return envelope(role('Desk', 'custom', ['user:read']));
    return envelope(null);
  });
}

signedInEachTest({ permissions: ['role:read', 'role:write', 'user:read'] });

describe('roles page', () => {
  it('lists built-in and custom roles with their permission counts; only custom ones can be selected', async () => {
    serve();
    renderPage('/console/access/role', '/console/access/role', <RolePage />);
    const admin = (await screen.findByText('Administrator')).closest('tr') as HTMLElement;
    expect(within(admin).getByTestId('role-type').textContent).toBe('Built-in');
    expect(within(admin).getByText('Permissions follow the release; read-only')).toBeTruthy();
    await waitFor(() => expect(within(admin).getByTestId('role-permission-count').textContent).toBe('3 / 3'));
    expect(within(admin).getByRole('checkbox')).toHaveProperty('disabled', true);
    expect(within(admin).getByTestId('role-open-Administrator').textContent).toBe('View');
    expect(within(admin).queryByTestId('role-delete-Administrator')).toBeNull();
    const help = screen.getByText('Help').closest('tr') as HTMLElement;
    expect(within(help).getByRole('checkbox')).toHaveProperty('disabled', false);
    expect(within(help).getByTestId('role-open-Help').textContent).toBe('Edit');
  });

  it('creates a custom role from the ticked permissions of the tree', async () => {
    const seen = serve();
    renderPage('/console/access/role', '/console/access/role', <RolePage />);
    fireEvent.click(await screen.findByTestId('role-add'));
    fireEvent.change(await screen.findByTestId('role-name'), { target: { value: ' Desk ' } });
    const leaf = await screen.findByText('user:read', { selector: '[data-permission] *' });
    const node = leaf.closest('.ant-tree-treenode') as HTMLElement;
    fireEvent.click(node.querySelector('.ant-tree-checkbox')!);
    await waitFor(() =>
      expect(screen.getByTestId('permission-count').textContent).toBe('1 of 3 permissions'),
    );
    // Ticking an area takes all of its permissions (the area key itself is not one).
    const area = screen
      .getByText('Roles', { selector: '[data-permission-node]' })
      .closest('.ant-tree-treenode') as HTMLElement;
    fireEvent.click(area.querySelector('.ant-tree-checkbox')!);
    await waitFor(() =>
      expect(screen.getByTestId('permission-count').textContent).toBe('2 of 3 permissions'),
    );
    fireEvent.click(screen.getByTestId('role-save'));
    await waitFor(() => expect(seen.some((c) => c.url === api.role.create.path)).toBe(true));
    const body: unknown = JSON.parse(String(seen.find((c) => c.url === api.role.create.path)?.data));
    expect(body).toEqual({ name: 'Desk', description: '', permissions: ['user:read', 'role:read'] });
  });

  it('deletes a custom role after the "cannot be undone" confirmation, and reloads the list', async () => {
    const seen = serve();
    renderPage('/console/access/role', '/console/access/role', <RolePage />);
    fireEvent.click(await screen.findByTestId('role-delete-Help'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText('Delete role Help?').length).toBeGreaterThan(0);
    expect(within(dialog).getByText(/cannot be undone/)).toBeTruthy();
    const listed = seen.filter((c) => c.url === api.role.list.path).length;
    fireEvent.click(screen.getByTestId('confirm-ok'));
    expect(await screen.findByText('Deleted')).toBeTruthy();
    const body: unknown = JSON.parse(String(seen.find((c) => c.url === api.role.delete.path)?.data));
    expect(body).toEqual({ ids: [rows[1]!.id] });
    await waitFor(() =>
      expect(seen.filter((c) => c.url === api.role.list.path).length).toBeGreaterThan(listed),
    );
  });

  it("shows the server's refusal, never 'Deleted', and still reloads the list", async () => {
    const seen = serve(true);
    renderPage('/console/access/role', '/console/access/role', <RolePage />);
    fireEvent.click(await screen.findByTestId('role-delete-Help'));
    const listed = seen.filter((c) => c.url === api.role.list.path).length;
    fireEvent.click(await screen.findByTestId('confirm-ok'));
    expect(await screen.findByText("Role 'Help' is still held by 2 users")).toBeTruthy();
    await waitFor(() =>
      expect(seen.filter((c) => c.url === api.role.list.path).length).toBeGreaterThan(listed),
    );
    expect(screen.queryByText('Deleted')).toBeNull();
  });

  it('shows a built-in role read-only', async () => {
    serve();
    renderPage('/console/access/role', '/console/access/role', <RolePage />);
    fireEvent.click(await screen.findByTestId('role-open-Administrator'));
    expect(await screen.findByTestId('role-read-only')).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('permission-count').textContent).toBe('3 of 3 permissions'),
    );
    expect(screen.queryByText('Select all')).toBeNull();
    expect(screen.getByTestId<HTMLInputElement>('role-name').disabled).toBe(true);
  });
});
