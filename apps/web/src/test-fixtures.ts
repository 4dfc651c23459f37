import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from 'axios';
import type { MenuItem } from '@ksp/contracts';
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
