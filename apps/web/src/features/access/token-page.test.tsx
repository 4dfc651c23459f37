import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { i18n } from '../../i18n/i18n';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import TokenPage from './token-page';
import { answerWith, signedInEachTest } from '../../test-session';

const PATH = '/console/access/token';
const row = (name: string, usage: 'kadp' | 'kmip') => ({
  id: `0190d5a4-0000-7000-8000-00000000000${usage === 'kadp' ? '1' : '2'}`,
  name,
  usage,
  expires_at: '-',
  cert_validity_days: 365,
  capacity: 0,
  used: 0,
  remaining: null,
  status: 'valid',
  created_at: '2026-01-01T00:00:00.000Z',
});
const SECRET = 'ksprt_renewedSecret-1';

function serve() {
  return answerWith((config: InternalAxiosRequestConfig) => {
    switch (config.url) {
      case api.registrationToken.list.path:
        return envelope({ data: [row('apps', 'kadp'), row('kmip-devices', 'kmip')], total: 2 });
      case api.registrationToken.renew.path:
        return envelope({ ...row('apps', 'kadp'), secret: SECRET });
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}

signedInEachTest({ permissions: ['token:read', 'token:write'] });
afterEach(async () => {
  vi.restoreAllMocks();
  await act(() => i18n.changeLanguage('en'));
});

describe.each(['en', 'zh'] as const)('registration tokens: the enrolment command (%s)', (lang) => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage(lang));
  });

  it('opens /remote-add for an agent token (type only), not for a KMIP one', async () => {
    serve();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    renderPage(PATH, PATH, <TokenPage />);
    fireEvent.click(await screen.findByTestId('token-enrol-apps'));
    expect(open).toHaveBeenCalledWith('/remote-add#type=kadp', '_blank', 'noopener,noreferrer');
    expect(screen.queryByTestId('token-enrol-kmip-devices')).toBeNull();
  });

  it('links the secret it has just shown to /remote-add in the URL fragment only', async () => {
    serve();
    renderPage(PATH, PATH, <TokenPage />);
    fireEvent.click(await screen.findByTestId('token-renew-apps'));
    const dialog = await screen.findByRole('dialog');
    const ok = within(dialog).getByRole('button', { name: lang === 'en' ? /renew/i : /更新密钥/ });
    fireEvent.click(ok);
    const link = await screen.findByTestId('token-enrol-command');
    expect(link.textContent).toBe(lang === 'en' ? 'Enrolment command' : '注册命令');
    expect(link.getAttribute('href')).toBe(`/remote-add#token=${SECRET}&type=kadp`);
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.getAttribute('target')).toBe('_blank');
    await waitFor(() => expect(screen.getByTestId('secret-value').textContent).toBe(SECRET));
  });
});
