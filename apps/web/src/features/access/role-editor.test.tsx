import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { accessTree } from './permission-tree.fixture';
import { RoleEditor, type RoleRow } from './role-editor';
import { answerWith, signedInEachTest } from '../../test-session';

/** The tree as the server offers it: served areas only (no certificates, no logs). */
const tree = accessTree;

/** A role stored before its areas were hidden: it holds certificate and log permissions. */
const role: RoleRow = {
  id: '00000000-0000-4000-8000-000000000004',
  name: 'Desk',
  description: '',
  type: 'custom',
  type_description: '',
  permissions: ['user:read', 'cert:read', 'log:read'],
  users: [],
  created_at: '2026-01-01T00:00:00Z',
};

function serve() {
  return answerWith((config) => {
    if (config.url === api.role.permissionTree.path) return envelope(tree);
    if (config.url === api.role.update.path) return envelope(role);
    return envelope(null);
  });
}

signedInEachTest({ permissions: ['role:read', 'role:write'] });

describe('the role editor', () => {
  it('offers only the served areas, and keeps the permissions of the others the role holds', async () => {
    const seen = serve();
    renderPage(
      '/console/access/role',
      '/console/access/role',
      <RoleEditor target={{ mode: 'edit', role }} onClose={() => undefined} onSaved={() => undefined} />,
    );
    await waitFor(() =>
      expect(screen.getByTestId('permission-count').textContent).toBe('1 of 3 permissions'),
    );
    expect(document.querySelector('[data-permission="cert:read"]')).toBeNull();
    expect(document.querySelector('[data-permission-node="area:cert"]')).toBeNull();
    fireEvent.click(screen.getByText('Select all'));
    await waitFor(() =>
      expect(screen.getByTestId('permission-count').textContent).toBe('3 of 3 permissions'),
    );
    fireEvent.click(screen.getByTestId('role-save'));
    await waitFor(() => expect(seen.some((c) => c.url === api.role.update.path)).toBe(true));
    const body = JSON.parse(String(seen.find((c) => c.url === api.role.update.path)?.data)) as {
      permissions: string[];
    };
    expect(body.permissions).toEqual(['user:read', 'user:write', 'role:read', 'cert:read', 'log:read']);
  });
});
