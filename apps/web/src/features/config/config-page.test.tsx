import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { api, builtInConfig } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { changeLanguage } from '../../i18n/i18n';
import ConfigPage from './config-page';
import { answerWith, signedInEachTest } from '../../test-session';

// Whole antd pages render here: on a loaded shared machine the first one can take seconds.

function entry(key: string, value: string, flags: { built_in?: boolean; read_only?: boolean } = {}) {
  return {
    id: `00000000-0000-4000-8000-${String(key.length).padStart(12, '0')}`,
    key,
    value,
    public: true,
    built_in: flags.built_in ?? false,
    read_only: flags.read_only ?? false,
    description: `${key} entry`,
    updated_at: '2026-01-10T12:00:00Z',
  };
}

const rows = [
  entry('version', 'v1.9.0', { built_in: true, read_only: true }),
  entry('MFA', '0', { built_in: true }),
  entry('support.email', 'ops@example.com'),
];

function serve() {
  return answerWith((config) => {
    if (config.url === api.config.list.path) {
      const key = (config.params as { key?: string }).key;
      const data = key ? rows.filter((row) => row.key.includes(key)) : rows;
      return envelope({ data, total: data.length });
    }
    if (config.url === api.config.delete.path) return envelope({ deleted: 1 });
    if (config.url === api.config.edit.path) return envelope({ ...rows[1], value: '1' });
    return envelope([]);
  });
}

signedInEachTest();

const rowOf = (key: string) => screen.getByText(key).closest('tr') as HTMLElement;

describe('configuration page', () => {
  it('lists the entries; built-in ones cannot be selected, read-only ones cannot be edited', async () => {
    serve();
    renderPage('/console/setting/config', '/console/setting/config', <ConfigPage />);
    await screen.findByText('support.email');
    expect(within(rowOf('version')).getByRole('checkbox')).toHaveProperty('disabled', true);
    expect(within(rowOf('MFA')).getByRole('checkbox')).toHaveProperty('disabled', true);
    expect(within(rowOf('support.email')).getByRole('checkbox')).toHaveProperty('disabled', false);
    expect(screen.getByTestId('config-edit-version')).toHaveProperty('disabled', true);
    expect(screen.getByTestId('config-edit-MFA')).toHaveProperty('disabled', false);
  });

  it('batch delete needs a selection, warns that it cannot be undone, and sends the ids', async () => {
    const seen = serve();
    renderPage('/console/setting/config', '/console/setting/config', <ConfigPage />);
    await screen.findByText('support.email');
    fireEvent.click(screen.getByTestId('batch-delete'));
    expect(await screen.findByText('Please select at least 1 item!')).toBeTruthy();

    fireEvent.click(within(rowOf('support.email')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('batch-delete'));
    expect(await screen.findByText(/cannot be undone/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-delete'));
    await waitFor(() => expect(seen.some((config) => config.url === api.config.delete.path)).toBe(true));
    const request = seen.find((config) => config.url === api.config.delete.path);
    expect(request?.method).toBe('delete');
    expect(JSON.parse(String(request?.data))).toEqual({ ids: [rows[2]?.id] });
  });

  it('keeps the key filter in the URL and sends it to the server', async () => {
    const seen = serve();
    const { router } = renderPage('/console/setting/config', '/console/setting/config', <ConfigPage />);
    await screen.findByText('support.email');
    fireEvent.change(screen.getByTestId('list-search'), { target: { value: 'MFA' } });
    fireEvent.click(screen.getByTestId('list-search-submit'));
    await waitFor(() => expect(router.state.location.search).toBe('?key=MFA'));
    await waitFor(() => expect(screen.queryByText('support.email')).toBeNull());
    const last = seen.filter((config) => config.url === api.config.list.path).at(-1);
    expect(last?.params).toEqual({ page: 1, page_size: 20, key: 'MFA' });
  });

  it('edits MFA as a switch sending "1"', async () => {
    const seen = serve();
    renderPage('/console/setting/config', '/console/setting/config', <ConfigPage />);
    await screen.findByText('support.email');
    fireEvent.click(screen.getByTestId('config-edit-MFA'));
    const mfa = await screen.findByTestId('config-mfa');
    expect(mfa.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(mfa);
    fireEvent.click(screen.getByTestId('form-modal-ok'));
    await waitFor(() => expect(seen.some((config) => config.url === api.config.edit.path)).toBe(true));
    const request = seen.find((config) => config.url === api.config.edit.path);
    expect(request?.method).toBe('put');
    expect(JSON.parse(String(request?.data))).toMatchObject({ id: rows[1]?.id, value: '1' });
  });

  it("shows a built-in entry's stock description in Chinese when editing, and keeps the stored text", async () => {
    const stock = builtInConfig.MFA.description;
    rows[1] = { ...rows[1]!, description: stock };
    const seen = serve();
    await changeLanguage('zh');
    try {
      renderPage('/console/setting/config', '/console/setting/config', <ConfigPage />);
      await screen.findByText('support.email');
      fireEvent.click(screen.getByTestId('config-edit-MFA'));
      const dialog = await screen.findByRole('dialog');
      const text = within(dialog).getByDisplayValue("为 '1' 时登录需要 Ukey 第二因素");
      expect(text).toBeTruthy();
      fireEvent.click(screen.getByTestId('form-modal-ok'));
      await waitFor(() => expect(seen.some((config) => config.url === api.config.edit.path)).toBe(true));
      const request = seen.find((config) => config.url === api.config.edit.path);
      // Unchanged: the stored English stock text is sent back, not its translation.
      expect(JSON.parse(String(request?.data))).toMatchObject({ description: stock });
    } finally {
      await changeLanguage('en');
      rows[1] = entry('MFA', '0', { built_in: true });
    }
  });
});
