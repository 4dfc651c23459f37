import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import {
  api,
  Code,
  COMMUNITY_LIMITS,
  licenseFeatures,
  type LicenseOverview,
  type LicenseRow,
} from '@ksp/contracts';
import type { InternalAxiosRequestConfig } from 'axios';
import { saveSignedIn } from '../../api/session';
import { i18n } from '../../i18n/i18n';
import { envelope, signedInFixture, type FakeReply } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import LicensePage from './license-page';
import { answerWith, signedInEachTest } from '../../test-session';

const PATH = '/console/setting/license';
const LOCK = '3F2A-9B10-C4D5-E6F7-0011';

const licence: LicenseRow = {
  row_id: '0190d5a4-0000-7000-8000-000000000001',
  id: 'LIC-2026-001',
  customer: 'Example Corp',
  lock_code: LOCK,
  bind_type: 'instance',
  features: { keys: 5000, kmip_clients: 10 },
  not_before: '2026-01-01T00:00:00.000Z',
  not_after: '2027-01-01T00:00:00.000Z',
  issued_at: '2026-01-01T00:00:00.000Z',
  status: 'active',
  text: 'KSP1.eyJpZCI6IkxJQy0yMDI2LTAwMSJ9.c2lnbmF0dXJl',
  activated_at: '2026-01-02T00:00:00.000Z',
  activated_by: 'admin',
};

function overview(licensed: boolean): LicenseOverview {
  return {
    lock_code: LOCK,
    state: licensed ? 'licensed' : 'community',
    features: licenseFeatures.map((feature) => {
      const granted = licensed ? licence.features[feature] : undefined;
      return {
        feature,
        total: granted ?? COMMUNITY_LIMITS[feature],
        used: feature === 'keys' ? 12 : 0,
        source: granted === undefined ? 'community' : 'license',
        not_before: granted === undefined ? null : licence.not_before,
        not_after: granted === undefined ? null : licence.not_after,
      };
    }),
    licenses: licensed ? [licence] : [],
  };
}

function serve(opts: { licensed?: boolean; activate?: (body: { license: string }) => FakeReply } = {}) {
  let licensed = opts.licensed ?? false;
  return answerWith((config: InternalAxiosRequestConfig) => {
    if (config.url === api.license.lockdata.path) return envelope({ lock_code: LOCK, bind_type: 'instance' });
    if (config.url === api.license.list.path) return envelope(overview(licensed));
    if (config.url === api.license.activate.path) {
      const body = JSON.parse(String(config.data)) as { license: string };
      const reply = opts.activate?.(body) ?? envelope(licence);
      if (reply.data && (reply.data as { code: number }).code === 0) licensed = true;
      return reply;
    }
    if (config.url === api.license.delete.path) {
      licensed = false;
      return envelope({ deleted: 1 });
    }
    return envelope(null, Code.NOT_FOUND, 'Not served');
  });
}

signedInEachTest({ permissions: ['license:read', 'license:write'] });

const open = async () => {
  renderPage(PATH, PATH, <LicensePage />);
  await screen.findByTestId('license-state');
};
const sent = (seen: InternalAxiosRequestConfig[], url: string) => seen.filter((c) => c.url === url);

describe('license page', () => {
  it('shows the lock code with a copy button and the community limits without a licence', async () => {
    serve();
    await open();
    expect((await screen.findByTestId('license-lock-code')).textContent).toBe(LOCK);
    expect(screen.getByTestId('license-copy-lock')).toBeTruthy();
    expect(screen.getByTestId('license-state').textContent).toMatch(/Community edition/);
    expect(screen.getByTestId('license-total-keys').textContent).toBe('1,000');
    expect(screen.getByTestId('license-used-keys').textContent).toBe('12');
    expect(screen.getByTestId('license-source-keys').textContent).toBe('Community limit');
    expect(screen.getByText('No licence has been activated.')).toBeTruthy();
  });

  it('activates a pasted licence and shows its figures', async () => {
    const seen = serve();
    await open();
    fireEvent.click(screen.getByTestId('license-activate'));
    // Nothing pasted: refused before anything is sent.
    fireEvent.click(await screen.findByTestId('license-activate-ok'));
    expect(await screen.findByText('Paste the licence characters')).toBeTruthy();
    fireEvent.change(screen.getByTestId('license-text'), { target: { value: licence.text } });
    fireEvent.click(screen.getByTestId('license-activate-ok'));
    await waitFor(() => expect(screen.getByTestId('license-total-keys').textContent).toBe('5,000'));
    expect(sent(seen, api.license.activate.path).map((c) => JSON.parse(String(c.data)) as unknown)).toEqual([
      { license: licence.text },
    ]);
    expect(screen.getByTestId('license-status-LIC-2026-001').textContent).toBe('Active');
    expect(screen.getByTestId('license-source-keys').textContent).toBe('Licence');
    expect(screen.getByTestId('license-source-sms_servers').textContent).toBe('Community limit');
  });

  it('shows the server refusal inside the dialog, the field named', async () => {
    serve({
      activate: () =>
        envelope(
          null,
          Code.INVALID,
          'license: the signature does not verify: not issued by the vendor, or altered',
        ),
    });
    await open();
    fireEvent.click(screen.getByTestId('license-activate'));
    fireEvent.change(await screen.findByTestId('license-text'), { target: { value: 'KSP1.a.b' } });
    fireEvent.click(screen.getByTestId('license-activate-ok'));
    expect(await screen.findByText(/^license: the signature does not verify/)).toBeTruthy();
    expect(screen.getByTestId('license-text')).toBeTruthy();
  });

  it('deletes a licence after confirmation', async () => {
    const seen = serve({ licensed: true });
    await open();
    fireEvent.click(await screen.findByTestId('license-delete-LIC-2026-001'));
    fireEvent.click(await screen.findByTestId('license-delete-ok'));
    await waitFor(() => expect(sent(seen, api.license.delete.path)).toHaveLength(1));
    expect(JSON.parse(String(sent(seen, api.license.delete.path)[0]!.data))).toEqual({
      row_id: licence.row_id,
    });
    await waitFor(() => expect(screen.getByTestId('license-total-keys').textContent).toBe('1,000'));
  });

  it('offers no activation or delete without license:write', async () => {
    saveSignedIn(signedInFixture({ permissions: ['license:read'] }));
    serve({ licensed: true });
    await open();
    expect(screen.queryByTestId('license-activate')).toBeNull();
    expect(screen.queryByTestId('license-delete-LIC-2026-001')).toBeNull();
    expect(screen.getByText(/needs the license write permission/)).toBeTruthy();
  });

  it('speaks Chinese', async () => {
    serve({ licensed: true });
    await i18n.changeLanguage('zh');
    try {
      await open();
      expect(screen.getAllByText('锁定码').length).toBeGreaterThan(0);
      expect(screen.getAllByText('授权总数').length).toBeGreaterThan(0);
      expect(screen.getAllByText('已使用数量').length).toBeGreaterThan(0);
      expect(screen.getByTestId('license-status-LIC-2026-001').textContent).toBe('生效中');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
