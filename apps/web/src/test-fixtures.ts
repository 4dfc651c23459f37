import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from 'axios';
import type { ClientRow, MenuItem } from '@ksp/contracts';
import type { SignedIn } from './api/session';

/** Shared test data and a fake axios adapter (no network in unit tests). */
export const testMenu: MenuItem[] = [
  {
    path: '/console/dashboard',
    name: 'Dashboard',
    component: 'console/dashboard/index',
    hidden: false,
    meta: { title: 'dashboard', icon: 'dashboard', affix: true },
    children: [],
  },
  {
    path: '/console/setting',
    name: 'Setting',
    component: '#',
    redirect: '/console/setting/config',
    hidden: false,
    meta: { title: 'settings', icon: 'setting' },
    children: [
      {
        path: '/console/setting/config',
        name: 'SettingConfig',
        component: 'console/setting/config/index',
        hidden: false,
        meta: { title: 'config', icon: 'config' },
        children: [],
      },
    ],
  },
];

export function signedInFixture(overrides: Partial<SignedIn['userinfo']> = {}, menu = testMenu): SignedIn {
  return {
    token: 'token-1',
    menu,
    userinfo: {
      id: '7d7f2c7e-0c1a-4b8e-9a53-0f6f1f3f0a11',
      name: 'admin',
      email: 'admin@example.com',
      domain: 'root',
      domains: ['root', 'finance-department-east'],
      has_domains: true,
      roles: ['Administrator'],
      permissions: ['dashboard:read', 'config:read', 'config:write'],
      directory: null,
      must_change_password: false,
      ukey_bound: false,
      ukey_serial: null,
      last_login_at: null,
      session: { idle_seconds: 1800, max_seconds: 43200, refresh_seconds: 600 },
      ...overrides,
    },
  };
}

export interface FakeReply {
  status?: number;
  data?: unknown;
  /** Fail like a dropped connection. */
  network?: boolean;
}

/** An axios adapter answering from `reply`, recording every request it sees. */
export function fakeAdapter(reply: (config: InternalAxiosRequestConfig) => FakeReply | Promise<FakeReply>) {
  const seen: InternalAxiosRequestConfig[] = [];
  const adapter: AxiosAdapter = async (config) => {
    seen.push(config);
    const answer = await reply(config);
    if (answer.network) throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config);
    const response: AxiosResponse = {
      data: answer.data,
      status: answer.status ?? 200,
      statusText: String(answer.status ?? 200),
      headers: {},
      config,
    };
    if (response.status >= 400) {
      throw new AxiosError(
        `Request failed with status code ${response.status}`,
        'ERR_BAD_RESPONSE',
        config,
        null,
        response,
      );
    }
    return response;
  };
  return { adapter, seen };
}

export function envelope(data: unknown, code = 0, msg = 'Success') {
  return { data: { code, msg, data } };
}

/** A user row as the user list answers it: a plain, unlocked account that never signed in. */
export function userRowFixture(
  overrides: { id: string; username: string; email: string } & Record<string, unknown>,
) {
  return {
    phone: '',
    directory: null,
    roles: [] as { id: string; name: string }[],
    domains: [] as { id: string; name: string }[],
    ukey_bound: false,
    ukey_serial: null,
    must_change_password: false,
    locked: false,
    has_app_secret: false,
    ip_whitelist: [] as string[],
    last_login_at: null,
    login_count: 0,
    last_failed_login_at: null,
    failed_login_count: 0,
    created_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

/** system/status of a node ready to sign in to: initialized, activated, unsealed. */
export const readyStatus = {
  initialized: true,
  activated: true,
  sealed: false,
  version: 'v1.9.0',
  components_generated: 0,
  components_total: 0,
};

/** An enrolled agent as the client lists answer it, its certificate valid until 2099. */
export function clientRowFixture(
  overrides: Partial<ClientRow> & Pick<ClientRow, 'name' | 'type'>,
): ClientRow {
  return {
    id: '0190d5a4-0000-7000-8000-0000000000c1',
    os: 'Linux 6.1',
    agent_version: '1.2.0',
    mac: 'aa:bb:cc:dd:ee:ff',
    host: '',
    status: 'healthy',
    delete_acknowledged: false,
    profile: null,
    groups: [],
    token_name: '',
    last_seen_at: '2026-01-02T00:00:00.000Z',
    registered_at: '2026-01-01T00:00:00.000Z',
    certificate: {
      id: '0190d5a4-0000-7000-8000-0000000000d1',
      serial: '0a1b2c3d',
      not_before: '2026-01-01T00:00:00.000Z',
      not_after: '2099-01-01T00:00:00.000Z',
      ca_name: 'Root CA',
      revoked: false,
    },
    ...overrides,
  };
}
