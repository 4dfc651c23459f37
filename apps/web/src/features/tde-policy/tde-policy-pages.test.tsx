import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { api, Code, type PolicyDetail, type PolicyElementDetail, type ProfileRow } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { choose } from '../../test-select';
import ElementEditorPage from './element-editor-page';
import ElementListPage from './element-list-page';
import PolicyEditorPage from './policy-editor-page';
import PolicyListPage from './policy-list-page';
import ProfileDetailPage from './profile-detail-page';
import { answerWith, inLanguageEachTest, signedInEachTest } from '../../test-session';

const T = '2026-01-01T00:00:00.000Z';
const USERS = '0190d5a4-0000-7000-8000-0000000000a1';
const FILES = '0190d5a4-0000-7000-8000-0000000000a2';
const POLICY = '0190d5a4-0000-7000-8000-0000000000b1';
const MISSING = '0190d5a4-0000-7000-8000-0000000000b9';

const element = (id: string, kind: PolicyElementDetail['kind'], name: string): PolicyElementDetail => ({
  id,
  kind,
  name,
  description: '',
  entry_count: 1,
  used_by: [{ kind: 'policy', id: POLICY, name: 'finance' }],
  created_at: T,
  updated_at: T,
  resources: kind === 'resource' ? [{ directory: '/data', file: '', include_subfolders: true }] : [],
  users: kind === 'user' ? [{ uname: 'alice' }] : [],
  processes: [],
  source_list: [],
  signatures: [],
});
const elements = [element(USERS, 'user', 'staff'), element(FILES, 'resource', 'finance-data')];

const rule = (user: string | null, actions: ('read' | 'all_ops')[]) => ({
  user_set_id: user,
  process_set_id: null,
  resource_set_id: null,
  exclude_user_set: false,
  exclude_process_set: false,
  exclude_resource_set: false,
  actions,
  effects: ['permit' as const],
});
const policy: PolicyDetail = {
  id: POLICY,
  name: 'finance',
  description: '',
  type: 'standard',
  learn_mode: false,
  restrict_update: false,
  revision: 3,
  security_rule_count: 2,
  key_rule_count: 1,
  created_at: T,
  updated_at: T,
  security_rules: [
    {
      ...rule(USERS, ['read']),
      order: 1,
      user_set: { id: USERS, name: 'staff' },
      process_set: null,
      resource_set: null,
    },
    { ...rule(null, ['all_ops']), order: 2, user_set: null, process_set: null, resource_set: null },
  ],
  key_rules: [{ resource_set_id: null, key_id: 'clear_key', order: 1, resource_set: null, key_name: null }],
  rdm: null,
  guard_points: 0,
};
const profile: ProfileRow = {
  id: '0190d5a4-0000-7000-8000-0000000000c1',
  name: 'DefaultClientProfile',
  description: '',
  is_default: true,
  rwp_process_set_name: null,
  users: 0,
  created_at: T,
  updated_at: T,
  logging: {
    threshold: 'WARN',
    duplicates: 'SUPPRESS',
    file_enabled: true,
    syslog_enabled: false,
    upload_enabled: true,
  },
  file_settings: { max_file_size_kb: 1024, max_old_files: 5, allow_purge: true },
  upload_settings: {
    connection_timeout_s: 30,
    min_interval_s: 10,
    max_interval_s: 600,
    max_messages: 1000,
    drop_if_busy: false,
  },
  duplicate_settings: { suppress_interval_s: 600, suppress_threshold: 5 },
  cache_settings: { max_files: 200, max_space_mb: 100 },
  connect_timeout_s: 30,
  rwp_operation: 'permit',
  rwp_process_set_id: null,
  syslog_settings: {
    local: false,
    syslog_threshold: 'WARN',
    servers: [
      {
        name: 'siem.example.test',
        port: 6514,
        protocol: 'TLS',
        message_format: 'CEF',
        cacertificate: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----',
        certificate: '-----BEGIN CERTIFICATE-----\nME\n-----END CERTIFICATE-----',
        has_private_key: true,
      },
    ],
  },
  ldt_qos: {
    ldt_qos_schedule: 'ANY_TIME',
    qos_schedules: [],
    rekey_rate_mbps: 0,
    cpu_percent: null,
    ldt_qos_status_check_rate: 3600,
  },
};
const SYSLOG_REFUSAL = 'syslog_settings.servers[1].name: must be a host name or an IP address';

/** The answer to a create or update, in place of a success (a refusal of the server). */
let refusal: { code: number; msg: string } | null = null;

function serve() {
  return answerWith((config: InternalAxiosRequestConfig) => {
    const body = config.data ? (JSON.parse(String(config.data)) as Record<string, unknown>) : {};
    switch (config.url) {
      case api.tdePolicy.policyList.path:
        return envelope({ data: [policy], total: 1 });
      case api.rdmPolicy.policyList.path:
        return envelope({ data: [{ ...policy, name: 'ransom', type: 'rdm' }], total: 1 });
      case api.tdePolicy.policyDetail.path:
        if ((config.params as { id?: string } | undefined)?.id === MISSING)
          return envelope(null, Code.NOT_FOUND, 'Policy not found');
        return envelope(policy);
      case api.tdePolicy.policyCreate.path:
      case api.tdePolicy.policyUpdate.path:
        if (refusal) return envelope(null, refusal.code, refusal.msg);
        return envelope({ ...policy, name: String(body.name), revision: 4 });
      case api.tdePolicy.keyOptions.path:
        return envelope([]);
      case api.tdePolicy.elementList.path:
      case api.rdmPolicy.elementList.path:
        return envelope({ data: elements, total: elements.length });
      case api.tdePolicy.elementCreate.path:
        return envelope({ ...element(FILES, 'resource', String(body.name)) });
      case api.tdePolicy.profileDetail.path:
        if ((config.params as { name?: string } | undefined)?.name === 'gone')
          return envelope(null, Code.NOT_FOUND, 'Profile not found');
        return envelope(profile);
      case api.tdePolicy.profileUpdate.path: {
        const servers = (body.syslog_settings as { servers: { name: string }[] }).servers;
        if (servers.some((s) => s.name === 'bad host!')) return envelope(null, Code.INVALID, SYSLOG_REFUSAL);
        // As the server answers: the servers say whether a key is stored, never the key.
        return envelope({
          ...profile,
          ...body,
          syslog_settings: {
            ...(body.syslog_settings as object),
            servers: servers.map((s) => ({ ...s, has_private_key: false })),
          },
        });
      }
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}
const sent = (seen: InternalAxiosRequestConfig[], path: string) =>
  seen.filter((c) => c.url === path).map((c) => JSON.parse(String(c.data)) as Record<string, unknown>);

signedInEachTest({ permissions: ['cte:read', 'cte:write', 'rdm:read', 'rdm:write'] });
afterEach(() => {
  refusal = null;
});

describe.each(['en', 'zh'] as const)('TDE policy pages (%s)', (lang) => {
  inLanguageEachTest(lang);

  it('lists policies with their type and opens the editor to create one', async () => {
    serve();
    const list = '/cte/policies/policies';
    const { router } = renderPage(list, list, <PolicyListPage />, {
      '/cte/policies/create-policies': 'create',
    });
    const row = await screen.findByTestId('policy-row-finance');
    expect(row.textContent).toContain(lang === 'en' ? 'Standard' : '标准');
    fireEvent.click(screen.getByTestId('policy-create'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/cte/policies/create-policies'));
  });

  it('opens an existing policy on its first step, type locked, and saves a reordered rule list', async () => {
    const seen = serve();
    const path = `/cte/policies/policies-details/${POLICY}`;
    renderPage(path, '/cte/policies/policies-details/:id', <PolicyEditorPage />);
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('policy-name').value).toBe('finance'));
    expect(screen.getByTestId('policy-revision').textContent).toContain('3');
    // The type of an existing policy cannot change.
    expect(screen.getByTestId('policy-type').closest('.ant-select')?.className).toContain(
      'ant-select-disabled',
    );
    expect(
      screen.getByText(lang === 'en' ? 'The type cannot change after creation' : '策略创建后不能更改类型'),
    ).toBeTruthy();
    // An existing policy can jump to any step: straight to the security rules.
    fireEvent.click(screen.getByTestId('policy-step-rules'));
    await waitFor(() => expect(screen.getByTestId('rule-row-0').textContent).toContain('staff'));
    fireEvent.click(screen.getByTestId('rule-down-0'));
    await waitFor(() => expect(screen.getByTestId('rule-row-1').textContent).toContain('staff'));
    fireEvent.click(screen.getByTestId('policy-step-review'));
    // The review lists the rules in their new order.
    const any = lang === 'en' ? 'Any' : '任意';
    await waitFor(() => expect(screen.getByTestId('review-rule-row-0').textContent).toContain(any));
    expect(screen.getByTestId('review-rule-row-0').textContent).not.toContain('staff');
    expect(screen.getByTestId('review-rule-row-1').textContent).toContain('staff');
    expect(screen.getByTestId('review-name').textContent).toBe('finance');
    fireEvent.click(screen.getByTestId('policy-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.policyUpdate.path)).toHaveLength(1));
    const body = sent(seen, api.tdePolicy.policyUpdate.path)[0]!;
    expect(body.id).toBe(POLICY);
    expect(body.name).toBe('finance');
    expect(body.security_rules).toEqual([rule(null, ['all_ops']), rule(USERS, ['read'])]);
    expect(body.key_rules).toEqual([{ resource_set_id: null, key_id: 'clear_key' }]);
  });

  it('holds the steps until an existing policy loaded, and says when it does not exist', async () => {
    serve();
    renderPage(
      `/cte/policies/policies-details/${MISSING}`,
      '/cte/policies/policies-details/:id',
      <PolicyEditorPage />,
    );
    // While it loads there is no step to click (a jump then was refused against an empty form).
    expect(screen.getByTestId('record-loading')).toBeTruthy();
    expect(screen.queryByTestId('policy-step-rules')).toBeNull();
    await screen.findByText(
      lang === 'en' ? 'This policy does not exist or was deleted' : '该策略不存在或已被删除',
    );
    expect(screen.queryByTestId('policy-editor')).toBeNull();
  });

  it('creates a policy step by step: Next checks the step, Back keeps what was typed', async () => {
    const seen = serve();
    const path = '/cte/policies/create-policies';
    renderPage(path, path, <PolicyEditorPage />, { '/cte/policies/policies-details/:id': 'detail' });
    await screen.findByTestId('policy-name');
    // No name: Next stays on the general step and says why.
    fireEvent.click(screen.getByTestId('policy-next'));
    await waitFor(() => expect(document.querySelector('.ant-form-item-explain-error')).not.toBeNull());
    expect(screen.queryByTestId('rule-add')).toBeNull();
    // A step not reached yet cannot be jumped to.
    fireEvent.click(screen.getByTestId('policy-step-review'));
    expect(screen.queryByTestId('policy-review')).toBeNull();
    fireEvent.change(screen.getByTestId('policy-name'), { target: { value: 'new-policy' } });
    fireEvent.change(screen.getByTestId('policy-description'), { target: { value: 'for finance' } });
    fireEvent.click(screen.getByTestId('policy-next'));
    fireEvent.click(await screen.findByTestId('rule-add'));
    fireEvent.click(await screen.findByTestId('rule-ok'));
    await screen.findByTestId('rule-row-0');
    // Back to the general step: the values typed are still there, and so is the rule after.
    fireEvent.click(screen.getByTestId('policy-prev'));
    expect((await screen.findByTestId<HTMLInputElement>('policy-name')).value).toBe('new-policy');
    expect(screen.getByTestId<HTMLInputElement>('policy-description').value).toBe('for finance');
    fireEvent.click(screen.getByTestId('policy-next'));
    await screen.findByTestId('rule-row-0');
    fireEvent.click(screen.getByTestId('policy-next'));
    await screen.findByTestId('key-rule-add');
    fireEvent.click(screen.getByTestId('policy-next'));
    await waitFor(() => expect(screen.getByTestId('review-description').textContent).toBe('for finance'));
    expect(screen.getByTestId('review-rule-row-0')).toBeTruthy();
    fireEvent.click(screen.getByTestId('policy-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.policyCreate.path)).toHaveLength(1));
    expect(sent(seen, api.tdePolicy.policyCreate.path)[0]).toMatchObject({
      name: 'new-policy',
      description: 'for finance',
      type: 'standard',
      security_rules: [rule(null, ['all_ops'])],
      rdm: null,
    });
  });

  it('brings the user back to the step and field a refusal of the server names', async () => {
    serve();
    const path = `/cte/policies/policies-details/${POLICY}`;
    renderPage(path, '/cte/policies/policies-details/:id', <PolicyEditorPage />);
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>('policy-name').value).toBe('finance'));
    const ruleRefusal =
      lang === 'en'
        ? 'security_rules[1].effects: a rule cannot both permit and deny'
        : 'security_rules[1].effects：同一规则不能既允许又拒绝';
    refusal = { code: 4000, msg: ruleRefusal };
    fireEvent.click(screen.getByTestId('policy-step-review'));
    fireEvent.click(await screen.findByTestId('policy-save'));
    // The security rules step, with the reason and the rule it names marked.
    await screen.findByTestId('rule-add');
    expect(screen.getByTestId('policy-step-error').textContent).toContain(ruleRefusal);
    expect(screen.getByTestId('rule-row-1').getAttribute('style')).toContain('background');
    expect(screen.getByTestId('rule-row-0').getAttribute('style') ?? '').not.toContain('background');
    // Moving the rule: the mark goes (it named a place the rule has left).
    fireEvent.click(screen.getByTestId('rule-up-1'));
    await waitFor(() => expect(screen.queryByTestId('policy-step-error')).toBeNull());
    expect(screen.getByTestId('rule-row-0').getAttribute('style') ?? '').not.toContain('background');
    // A name taken: the general step, the reason under the name.
    const taken =
      lang === 'en'
        ? "A standard policy named 'finance' already exists"
        : '名为“finance”的 standard 策略已存在';
    refusal = { code: 4090, msg: taken };
    fireEvent.click(screen.getByTestId('policy-step-review'));
    await new Promise((r) => setTimeout(r, 2100)); // the re-click lock of the save button
    fireEvent.click(screen.getByTestId('policy-save'));
    await screen.findByTestId('policy-name');
    await waitFor(() =>
      expect(screen.getByTestId('policy-name').closest('.ant-form-item')?.textContent).toContain(taken),
    );
  });

  it('shows the element kinds as tabs and lists a kind with its users', async () => {
    const seen = serve();
    const path = '/cte/policies/policy-elements';
    const { router } = renderPage(path, path, <ElementListPage />);
    await screen.findByTestId('element-row-staff');
    expect(screen.getByTestId('element-row-staff').textContent).toContain('finance');
    expect(screen.getByTestId('element-tab-user').textContent).toBe(lang === 'en' ? 'User set' : '用户集');
    fireEvent.click(screen.getByTestId('element-tab-user'));
    await waitFor(() => expect(router.state.location.search).toContain('kind=user'));
    await waitFor(() =>
      expect(
        seen.some(
          (c) => c.url === api.tdePolicy.elementList.path && (c.params as { kind?: string }).kind === 'user',
        ),
      ).toBe(true),
    );
  });

  it('creates a resource set with its entries', async () => {
    const seen = serve();
    const path = '/cte/policies/create-policies-elements';
    renderPage(`${path}?kind=resource`, path, <ElementEditorPage />, {
      '/cte/policies/policy-elements-details/:id': 'detail',
    });
    fireEvent.change(await screen.findByTestId('element-name'), { target: { value: 'hr-files' } });
    fireEvent.click(screen.getByTestId('entry-add-resources'));
    fireEvent.change(await screen.findByTestId('resource-directory-0'), { target: { value: '/hr' } });
    fireEvent.change(screen.getByTestId('resource-file-0'), { target: { value: '*.pdf' } });
    fireEvent.click(screen.getByTestId('element-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.elementCreate.path)).toHaveLength(1));
    expect(sent(seen, api.tdePolicy.elementCreate.path)[0]).toEqual({
      kind: 'resource',
      name: 'hr-files',
      description: '',
      resources: [{ directory: '/hr', file: '*.pdf', include_subfolders: false }],
    });
  });

  it('creates an element of the kind chosen just before Save', async () => {
    const seen = serve();
    const path = '/cte/policies/create-policies-elements';
    renderPage(`${path}?kind=resource`, path, <ElementEditorPage />, {
      '/cte/policies/policy-elements-details/:id': 'detail',
    });
    fireEvent.change(await screen.findByTestId('element-name'), { target: { value: 'admins' } });
    await choose('element-kind', lang === 'en' ? 'User set' : '用户集');
    fireEvent.click(screen.getByTestId('element-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.elementCreate.path)).toHaveLength(1));
    expect(sent(seen, api.tdePolicy.elementCreate.path)[0]).toEqual({
      kind: 'user',
      name: 'admins',
      description: '',
      users: [],
    });
  });

  it('lists RDM policies through the RDM calls on the RDM pages', async () => {
    const seen = serve();
    const path = '/rdm/policies/policies';
    renderPage(path, path, <PolicyListPage />);
    await screen.findByTestId('policy-row-ransom');
    expect(seen.some((c) => c.url === api.rdmPolicy.policyList.path)).toBe(true);
    expect(seen.some((c) => c.url === api.tdePolicy.policyList.path)).toBe(false);
  });

  it('says the range of an RDM threshold typed outside it, and stays on that step', async () => {
    const seen = serve();
    const path = '/rdm/policies/create-policies';
    renderPage(path, path, <PolicyEditorPage />, { '/rdm/policies/policies-details/:id': 'detail' });
    fireEvent.change(await screen.findByTestId('policy-name'), { target: { value: 'ransom-2' } });
    fireEvent.click(screen.getByTestId('policy-next'));
    fireEvent.change(await screen.findByTestId('policy-threshold-files'), { target: { value: '3' } });
    fireEvent.click(screen.getByTestId('policy-next'));
    expect(
      await screen.findByText(
        lang === 'en'
          ? 'Files rewritten must be a whole number from 5 to 100000'
          : '改写文件数必须是 5 到 100000 之间的整数',
      ),
    ).toBeTruthy();
    expect(screen.queryByTestId('rule-add')).toBeNull();
    expect(sent(seen, api.rdmPolicy.policyCreate.path)).toHaveLength(0);
  });

  it('says the range of a profile number typed outside it, and saves only a good one', async () => {
    const seen = serve();
    const path = '/cte/setting/profiles-details/DefaultClientProfile';
    renderPage(path, '/cte/setting/profiles-details/:name', <ProfileDetailPage />);
    const rule =
      lang === 'en'
        ? 'Connect timeout (s) must be a whole number from 5 to 150'
        : '连接超时（秒）必须是 5 到 150 之间的整数';
    const timeout = await screen.findByTestId('profile-connect-timeout');
    // Out of range, then a fraction: each is named, neither is changed into another number.
    for (const value of ['200', '7.5']) {
      fireEvent.change(timeout, { target: { value: '60' } });
      await waitFor(() => expect(screen.queryByText(rule)).toBeNull());
      fireEvent.change(timeout, { target: { value } });
      fireEvent.click(screen.getByTestId('profile-save'));
      expect(await screen.findByText(rule)).toBeTruthy();
      expect((timeout as HTMLInputElement).value).toBe(value);
    }
    fireEvent.change(timeout, { target: { value: '60' } });
    await waitFor(() => expect(screen.queryByText(rule)).toBeNull());
    // An optional number: left empty it is not asked for; typed, its range is checked the same way.
    const cpuRule =
      lang === 'en'
        ? 'CPU use (%) must be a whole number from 0 to 100'
        : 'CPU 占用（%）必须是 0 到 100 之间的整数';
    fireEvent.change(screen.getByTestId('profile-qos-cpu'), { target: { value: '150' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    expect(await screen.findByText(cpuRule)).toBeTruthy();
    expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(0);
    fireEvent.change(screen.getByTestId('profile-qos-cpu'), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(1));
    expect(sent(seen, api.tdePolicy.profileUpdate.path)[0]).toMatchObject({
      connect_timeout_s: 60,
      ldt_qos: { cpu_percent: null, rekey_rate_mbps: 0 },
    });
  });

  it('shows no profile form before the profile came, and says when it does not exist', async () => {
    const seen = serve();
    renderPage(
      '/cte/setting/profiles-details/gone',
      '/cte/setting/profiles-details/:name',
      <ProfileDetailPage />,
    );
    // Nothing to save while it loads: a save from the empty form would wipe the profile.
    expect(screen.getByTestId('record-loading')).toBeTruthy();
    expect(screen.queryByTestId('profile-save')).toBeNull();
    await screen.findByText(
      lang === 'en'
        ? 'This client profile does not exist or was deleted'
        : '该客户端配置文件不存在或已被删除',
    );
    expect(screen.queryByTestId('profile-detail')).toBeNull();
    expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(0);
  });

  it('edits a client profile by name', async () => {
    const seen = serve();
    const path = '/cte/setting/profiles-details/DefaultClientProfile';
    renderPage(path, '/cte/setting/profiles-details/:name', <ProfileDetailPage />);
    const timeout = await screen.findByTestId('profile-connect-timeout');
    expect(screen.queryByTestId('profile-delete')).toBeNull();
    fireEvent.change(timeout, { target: { value: '60' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(1));
    expect(sent(seen, api.tdePolicy.profileUpdate.path)[0]).toMatchObject({
      name: 'DefaultClientProfile',
      connect_timeout_s: 60,
      logging: { threshold: 'WARN' },
    });
  });

  it('edits the syslog servers and the LDT QoS of a profile, keeping the stored private key', async () => {
    const seen = serve();
    const path = '/cte/setting/profiles-details/DefaultClientProfile';
    renderPage(path, '/cte/setting/profiles-details/:name', <ProfileDetailPage />);
    const section = await screen.findByTestId('profile-syslog');
    expect(section.textContent).toContain(
      lang === 'en' ? 'Syslog servers (at most 2)' : 'Syslog 服务器（最多 2 个）',
    );
    expect(screen.getByTestId('profile-qos').textContent).toContain(
      lang === 'en' ? 'LDT QoS schedule' : 'LDT QoS 计划',
    );
    // The stored key is never shown: the field says one is kept.
    const key = await screen.findByTestId('syslog-key-0');
    expect((key as HTMLTextAreaElement).value).toBe('');
    expect(key.getAttribute('placeholder')).toBe(
      lang === 'en' ? 'A private key is stored: leave empty to keep it' : '已保存私钥：留空则保持不变',
    );
    fireEvent.click(screen.getByTestId('syslog-add'));
    fireEvent.change(await screen.findByTestId('syslog-name-1'), { target: { value: '10.0.0.9' } });
    // At most two servers.
    await waitFor(() => expect(screen.queryByTestId('syslog-add')).toBeNull());
    fireEvent.change(screen.getByTestId('profile-qos-check-rate'), { target: { value: '900' } });
    // A port out of range is named and stays as typed; nothing is saved until it is mended.
    fireEvent.change(screen.getByTestId('syslog-port-1'), { target: { value: '70000' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    expect(
      await screen.findByText(
        lang === 'en' ? 'Port must be a whole number from 1 to 65535' : '端口必须是 1 到 65535 之间的整数',
      ),
    ).toBeTruthy();
    expect(screen.getByTestId<HTMLInputElement>('syslog-port-1').value).toBe('70000');
    expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(0);
    fireEvent.change(screen.getByTestId('syslog-port-1'), { target: { value: '514' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() => expect(sent(seen, api.tdePolicy.profileUpdate.path)).toHaveLength(1));
    const body = sent(seen, api.tdePolicy.profileUpdate.path)[0]!;
    // The stored server goes back as it was (its key stays on the server), then the new one.
    const { has_private_key: _stored, ...storedServer } = profile.syslog_settings.servers[0]!;
    expect(body.syslog_settings).toEqual({
      ...profile.syslog_settings,
      servers: [
        storedServer,
        {
          name: '10.0.0.9',
          port: 514,
          protocol: 'UDP',
          message_format: 'RFC5424',
          cacertificate: '',
          certificate: '',
        },
      ],
    });
    expect(body.ldt_qos).toEqual({ ...profile.ldt_qos, ldt_qos_status_check_rate: 900 });
  });

  it("shows the server's refusal at the syslog field it names", async () => {
    serve();
    const path = '/cte/setting/profiles-details/DefaultClientProfile';
    renderPage(path, '/cte/setting/profiles-details/:name', <ProfileDetailPage />);
    fireEvent.click(await screen.findByTestId('syslog-add'));
    fireEvent.change(await screen.findByTestId('syslog-name-1'), { target: { value: 'bad host!' } });
    fireEvent.click(screen.getByTestId('profile-save'));
    await waitFor(() =>
      expect(screen.getByTestId('syslog-name-1').closest('.ant-form-item')?.textContent).toContain(
        SYSLOG_REFUSAL,
      ),
    );
  });
});
