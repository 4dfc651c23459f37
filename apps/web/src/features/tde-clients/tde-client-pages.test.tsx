import { describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  api,
  type AuthBinaryRow,
  type ClientGroupRow,
  type GuardPointRow,
  type TdeClientRow,
} from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { clientRowFixture, envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { CteClientDetailPage, RdmClientDetailPage } from './client-detail-page';
import { CteClientListPage, RdmClientListPage } from './client-list-page';
import GroupDetailPage from './group-detail-page';
import GroupListPage from './group-list-page';
import { answerWith, inLanguageEachTest, signedInEachTest } from '../../test-session';

const GROUP_ID = '0190d5a4-0000-7000-8000-0000000000a1';

const client: TdeClientRow = {
  ...clientRowFixture({
    name: 'db-host',
    type: 'tde',
    agent_version: '7.0',
    host: 'db.example',
    profile: 'verbose',
    groups: [GROUP_ID],
    token_name: 'cte-token',
  }),
  group_names: ['databases'],
  guard_points: 2,
  communication_enabled: true,
  client_locked: false,
};
const rdmClient: TdeClientRow = {
  ...client,
  id: '0190d5a4-0000-7000-8000-0000000000c2',
  name: 'file-server',
  type: 'rdm',
  groups: [],
  group_names: [],
  protection_mode: 'cte_rwp',
  suspicious_24h: 3,
};
const ownGp: GuardPointRow = {
  id: '0190d5a4-0000-7000-8000-0000000000e1',
  path: '/data',
  type: 'directory_auto',
  policy_id: '0190d5a4-0000-7000-8000-0000000000f1',
  policy_name: 'encrypt-data',
  enabled: true,
  origin: { kind: 'client' },
  created_at: '2026-01-01T00:00:00.000Z',
};
const groupGp: GuardPointRow = {
  ...ownGp,
  id: '0190d5a4-0000-7000-8000-0000000000e2',
  path: '/var/lib/db',
  origin: { kind: 'group', id: GROUP_ID, name: 'databases' },
};
const group: ClientGroupRow = {
  id: GROUP_ID,
  name: 'databases',
  description: 'database hosts',
  profile: null,
  members: 1,
  guard_points: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

const SIG_SET = '0190d5a4-0000-7000-8000-0000000000b1';
const ownBinary: AuthBinaryRow = {
  filename: '/usr/sbin/sshd',
  privilege: 'authenticator',
  signature_set_id: SIG_SET,
  signature_set_name: 'login-binaries',
  origin: { kind: 'client' },
};
const groupBinary: AuthBinaryRow = {
  filename: '/usr/bin/sudo',
  privilege: 'authenticator_euid',
  signature_set_id: null,
  signature_set_name: null,
  origin: { kind: 'group', id: GROUP_ID, name: 'databases' },
};

function serve(detail: TdeClientRow = client) {
  return answerWith((config: InternalAxiosRequestConfig) => {
    switch (config.url) {
      case api.tdeClient.list.path:
        return envelope({
          data: [client],
          total: 1,
          counts: { total: 4, errors: 1, warnings: 0, healthy: 3 },
        });
      case api.rdmClient.list.path:
        return envelope({
          data: [rdmClient],
          total: 1,
          counts: { total: 1, errors: 0, warnings: 0, healthy: 1 },
        });
      case api.tdeClient.detail.path:
        return envelope(detail);
      case api.rdmClient.detail.path:
        return envelope(rdmClient);
      case api.tdeClient.guardPoints.path:
        return envelope({
          data: (config.params as { group_id?: string }).group_id ? [{ ...groupGp }] : [ownGp, groupGp],
        });
      case api.rdmClient.guardPoints.path:
        return envelope({ data: [{ ...ownGp, type: 'rwp', policy_id: null, policy_name: null }] });
      case api.tdePolicy.policyList.path:
        return envelope({
          data: [{ id: ownGp.policy_id, name: 'encrypt-data', type: 'standard' }],
          total: 1,
        });
      case api.tdeClient.guardPointCreate.path:
        return envelope({ ...ownGp, path: '/home' });
      case api.tdeClient.guardPointSetEnabled.path:
        return envelope({ ...ownGp, enabled: false });
      case api.tdeClient.setProfile.path:
        return envelope(client);
      case api.rdmClient.setCommunication.path:
        return envelope({ ...rdmClient, communication_enabled: false });
      case api.tdeClient.groupList.path:
        return envelope({ data: [group], total: 1 });
      case api.tdeClient.groupDetail.path:
        return envelope({
          ...group,
          member_list: [{ id: client.id, name: client.name, host: client.host, status: 'healthy' }],
        });
      case api.tdeClient.groupCreate.path:
        return envelope({ ...group, name: 'web' });
      case api.tdeClient.authBinaries.path:
        return envelope({
          data: (config.params as { group_id?: string }).group_id ? [groupBinary] : [ownBinary, groupBinary],
        });
      case api.tdeClient.authBinariesSet.path: {
        const body = JSON.parse(String(config.data)) as { entries: { filename: string }[] };
        if (body.entries.some((e) => e.filename === '/bin/dup'))
          return envelope(null, 4000, 'entries[1].filename: /bin/dup is listed twice');
        return envelope({ data: [] });
      }
      case api.tdeClient.lock.path:
        return envelope({ ...client, client_locked: true });
      case api.tdePolicy.elementList.path:
        return envelope({ data: [{ id: SIG_SET, name: 'login-binaries', kind: 'signature' }], total: 1 });
      case api.tdeClient.groupRemoveMembers.path:
        return envelope({ ...group, members: 0 });
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}
const bodyOf = (seen: InternalAxiosRequestConfig[], path: string) =>
  JSON.parse(String(seen.find((c) => c.url === path)!.data)) as Record<string, unknown>;

signedInEachTest({ permissions: ['cte:read', 'cte:write', 'rdm:read', 'rdm:write'] });

describe.each(['en', 'zh'] as const)('TDE and RDM client pages (%s)', (lang) => {
  inLanguageEachTest(lang);

  it('lists TDE clients with the status bar, groups and guard point counts, and filters by group', async () => {
    const seen = serve();
    const { router } = renderPage('/cte/clients/main', '/cte/clients/main', <CteClientListPage />);
    const row = await screen.findByTestId('client-row-db-host');
    expect(row.textContent).toContain('databases');
    expect(row.textContent).toContain('db.example');
    const bar = screen.getByTestId('client-status-bar');
    await waitFor(() => expect(within(bar).getByTestId('client-count-total').textContent).toContain('4'));
    fireEvent.click(within(bar).getByTestId('client-count-errors'));
    await waitFor(() => expect(router.state.location.search).toContain('status=error'));
    await act(() => router.navigate(`/cte/clients/main?group=${GROUP_ID}`));
    await waitFor(() =>
      expect(
        seen.some(
          (c) =>
            c.url === api.tdeClient.list.path &&
            (c.params as { group?: string } | undefined)?.group === GROUP_ID,
        ),
      ).toBe(true),
    );
  });

  it('shows an RDM client with its protection mode and suspicious processes', async () => {
    serve();
    renderPage('/rdm/clients/main', '/rdm/clients/main', <RdmClientListPage />);
    const row = await screen.findByTestId('client-row-file-server');
    expect(row.textContent).toContain(lang === 'en' ? 'CTE + ransomware protection' : 'CTE + 勒索防护');
    expect(within(row).getByTestId('client-suspicious').textContent).toBe('3');
  });

  it('RDM detail: protection mode, suspicious count, communication, guard points without group tabs', async () => {
    const seen = serve();
    const path = `/rdm/clients/clients-details/${rdmClient.id}`;
    renderPage(path, '/rdm/clients/clients-details/:id', <RdmClientDetailPage />);
    expect((await screen.findByTestId('client-protection-mode')).textContent).toBe(
      lang === 'en' ? 'CTE + ransomware protection' : 'CTE + 勒索防护',
    );
    expect(screen.getByTestId('client-suspicious-count').textContent).toBe('3');
    fireEvent.click(screen.getByTestId('client-communication'));
    await waitFor(() =>
      expect(bodyOf(seen, api.rdmClient.setCommunication.path)).toEqual({ id: rdmClient.id, enabled: false }),
    );
    expect(screen.queryByText(lang === 'en' ? 'Authorised binaries' : '授权程序')).toBeNull();
    fireEvent.click(screen.getByText(lang === 'en' ? 'Guard points' : '防护点'));
    expect((await screen.findByTestId('gp-row-/data')).textContent).toContain(
      lang === 'en' ? 'Ransomware protection only' : '仅勒索防护',
    );
  });

  it('TDE detail: tabs, inherited guard points read-only, add, disable, and change the profile', async () => {
    const seen = serve();
    const path = `/cte/clients/clients-details/${client.id}`;
    renderPage(path, '/cte/clients/clients-details/:id', <CteClientDetailPage />);
    const identity = await screen.findByTestId('client-identity');
    expect(identity.textContent).toContain('verbose');
    expect(identity.textContent).toContain('databases');

    fireEvent.click(screen.getByText(lang === 'en' ? 'Guard points' : '防护点'));
    const inherited = await screen.findByTestId('gp-row-/var/lib/db');
    expect(inherited.textContent).toContain(lang === 'en' ? 'Group databases' : '客户端组 databases');
    expect(within(inherited).queryByTestId('gp-unguard-/var/lib/db')).toBeNull();
    expect(within(inherited).getByRole('switch')).toHaveProperty('disabled', true);
    const own = screen.getByTestId('gp-row-/data');
    fireEvent.click(within(own).getByRole('switch'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.guardPointSetEnabled.path)).toEqual({ id: ownGp.id, enabled: false }),
    );

    fireEvent.click(screen.getByTestId('gp-add'));
    fireEvent.change(await screen.findByTestId('gp-path'), { target: { value: '/home' } });
    // The policy is picked by name from the domain's standard policies.
    fireEvent.mouseDown(screen.getByTestId('gp-policy').closest('.ant-select')!.querySelector('input')!);
    fireEvent.click(await screen.findByTitle('encrypt-data'));
    fireEvent.click(screen.getByTestId('gp-ok'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.guardPointCreate.path)).toEqual({
        client_id: client.id,
        path: '/home',
        type: 'directory_auto',
        policy_id: ownGp.policy_id,
        enabled: true,
      }),
    );

    fireEvent.click(screen.getByText(lang === 'en' ? 'General' : '常规'));
    fireEvent.click(await screen.findByTestId('client-profile-edit'));
    const name = await screen.findByTestId('client-profile-name');
    fireEvent.change(name, { target: { value: '' } });
    fireEvent.click(screen.getByTestId('client-profile-ok'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.setProfile.path)).toEqual({ id: client.id, profile: null }),
    );
  });

  it('client groups: list, create, members and group guard points', async () => {
    const seen = serve();
    renderPage('/cte/clients/clients-groups', '/cte/clients/clients-groups', <GroupListPage />);
    const row = await screen.findByTestId('group-row-databases');
    expect(row.textContent).toContain('database hosts');
    fireEvent.click(screen.getByTestId('group-add'));
    fireEvent.change(await screen.findByTestId('group-name'), { target: { value: 'web' } });
    fireEvent.click(screen.getByTestId('group-ok'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.groupCreate.path)).toEqual({
        name: 'web',
        description: '',
        profile: null,
      }),
    );
  });

  it('group detail: members removable, group guard points editable', async () => {
    const seen = serve();
    const path = `/cte/clients/clients-groups-details/${GROUP_ID}`;
    renderPage(path, '/cte/clients/clients-groups-details/:id', <GroupDetailPage />);
    const title = await screen.findByTestId('group-detail-title');
    await waitFor(() => expect(title.textContent).toContain('databases'));
    fireEvent.click(await screen.findByTestId('member-remove-db-host'));
    fireEvent.click(await screen.findByTestId('member-confirm-remove'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.groupRemoveMembers.path)).toEqual({
        id: GROUP_ID,
        client_ids: [client.id],
      }),
    );
    fireEvent.click(screen.getByRole('tab', { name: new RegExp(lang === 'en' ? 'Guard points' : '防护点') }));
    const gp = await screen.findByTestId('gp-row-/var/lib/db');
    expect(within(gp).getByTestId('gp-unguard-/var/lib/db')).toBeTruthy();
  });

  it('TDE detail: authorised binaries, own editable and inherited read-only, saved as a list', async () => {
    const seen = serve();
    const path = `/cte/clients/clients-details/${client.id}`;
    renderPage(path, '/cte/clients/clients-details/:id', <CteClientDetailPage />);
    await screen.findByTestId('client-identity');
    fireEvent.click(screen.getByText(lang === 'en' ? 'Authorised binaries' : '授权程序'));
    const own = await screen.findByTestId('binary-row-/usr/sbin/sshd');
    expect(own.textContent).toContain('login-binaries');
    expect(own.textContent).toContain(lang === 'en' ? 'Authenticator' : '认证者');
    const inherited = screen.getByTestId('binary-row-/usr/bin/sudo');
    expect(inherited.textContent).toContain(lang === 'en' ? 'Group databases' : '客户端组 databases');
    expect(inherited.textContent).toContain(
      lang === 'en' ? 'Authenticator (effective UID)' : '认证者（有效 UID）',
    );
    expect(within(inherited).queryByTestId('binary-remove-/usr/bin/sudo')).toBeNull();
    // Add /bin/su, then save: the client's own list only (inherited ones stay the group's).
    fireEvent.click(screen.getByTestId('binary-add'));
    fireEvent.change(await screen.findByTestId('binary-filename'), { target: { value: '/bin/su' } });
    fireEvent.click(screen.getByTestId('binary-ok'));
    await screen.findByTestId('binary-row-/bin/su');
    fireEvent.click(screen.getByTestId('binary-save'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.authBinariesSet.path)).toEqual({
        client_id: client.id,
        entries: [
          { filename: '/usr/sbin/sshd', privilege: 'authenticator', signature_set_id: SIG_SET },
          { filename: '/bin/su', privilege: 'authenticator', signature_set_id: null },
        ],
      }),
    );
  });

  it("shows the server's refusal of a list of binaries", async () => {
    serve();
    const path = `/cte/clients/clients-details/${client.id}`;
    renderPage(path, '/cte/clients/clients-details/:id', <CteClientDetailPage />);
    await screen.findByTestId('client-identity');
    fireEvent.click(screen.getByText(lang === 'en' ? 'Authorised binaries' : '授权程序'));
    fireEvent.click(await screen.findByTestId('binary-edit-/usr/sbin/sshd'));
    const filename = await screen.findByTestId('binary-filename');
    fireEvent.change(filename, { target: { value: 'relative/path' } });
    fireEvent.click(screen.getByTestId('binary-ok'));
    expect(
      await screen.findByText(
        lang === 'en' ? 'An absolute path (/… or C:\\…)' : '须为绝对路径（/… 或 C:\\…）',
      ),
    ).toBeTruthy();
    fireEvent.change(filename, { target: { value: '/bin/dup' } });
    fireEvent.click(screen.getByTestId('binary-ok'));
    await screen.findByTestId('binary-row-/bin/dup');
    fireEvent.click(screen.getByTestId('binary-save'));
    expect(await screen.findByText(/\/bin\/dup is listed twice/)).toBeTruthy();
    // The draft stays for correction.
    expect(screen.getByTestId('binary-row-/bin/dup')).toBeTruthy();
  });

  it('locks a TDE client from its row after a confirmation', async () => {
    const seen = serve();
    renderPage('/cte/clients/main', '/cte/clients/main', <CteClientListPage />);
    const row = await screen.findByTestId('client-row-db-host');
    expect(within(row).queryByTestId('client-locked-tag')).toBeNull();
    fireEvent.click(within(row).getByTestId('client-lock-db-host'));
    expect(
      (await screen.findAllByText(lang === 'en' ? 'Lock client db-host?' : '锁定客户端 db-host？')).length,
    ).toBeGreaterThan(0);
    fireEvent.click(await screen.findByTestId('client-confirm-lock'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.lock.path)).toEqual({ id: client.id, locked: true }),
    );
  });

  it('shows a locked client with its tag and an Unlock action on the detail page', async () => {
    const seen = serve({ ...client, client_locked: true });
    const path = `/cte/clients/clients-details/${client.id}`;
    renderPage(path, '/cte/clients/clients-details/:id', <CteClientDetailPage />);
    expect((await screen.findByTestId('client-locked-tag')).textContent).toBe(
      lang === 'en' ? 'Locked' : '已锁定',
    );
    const button = screen.getByTestId('client-lock');
    // antd spaces out a two-character Chinese button label.
    expect(button.textContent?.replace(/\s/gu, '')).toBe(lang === 'en' ? 'Unlock' : '解锁');
    fireEvent.click(button);
    fireEvent.click(await screen.findByTestId('client-confirm-lock'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.lock.path)).toEqual({ id: client.id, locked: false }),
    );
  });

  it("group detail: the group's authorised binaries, editable there", async () => {
    const seen = serve();
    const path = `/cte/clients/clients-groups-details/${GROUP_ID}`;
    renderPage(path, '/cte/clients/clients-groups-details/:id', <GroupDetailPage />);
    await screen.findByTestId('group-detail-title');
    fireEvent.click((await screen.findAllByText(lang === 'en' ? 'Authorised binaries' : '授权程序'))[0]!);
    const row = await screen.findByTestId('binary-row-/usr/bin/sudo');
    fireEvent.click(within(row).getByTestId('binary-remove-/usr/bin/sudo'));
    await waitFor(() => expect(screen.queryByTestId('binary-row-/usr/bin/sudo')).toBeNull());
    fireEvent.click(screen.getByTestId('binary-save'));
    await waitFor(() =>
      expect(bodyOf(seen, api.tdeClient.authBinariesSet.path)).toEqual({ group_id: GROUP_ID, entries: [] }),
    );
  });
});
