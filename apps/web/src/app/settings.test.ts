import { describe, expect, it } from 'vitest';
import { defaultSettings, readSettings } from './settings';

describe('page settings', () => {
  it('defaults: showSettings, tagsView on; fixedHeader, sidebarLogo off', () => {
    expect(readSettings(null)).toEqual({
      theme: '#1677ff',
      showSettings: true,
      tagsView: true,
      fixedHeader: false,
      sidebarLogo: false,
    });
  });

  it('reads stored values and ignores malformed ones', () => {
    expect(readSettings(JSON.stringify({ fixedHeader: true, theme: '#13c2c2' }))).toEqual({
      ...defaultSettings,
      fixedHeader: true,
      theme: '#13c2c2',
    });
    expect(readSettings(JSON.stringify({ tagsView: 'no', theme: 'red;}' }))).toEqual(defaultSettings);
    expect(readSettings('{oops')).toEqual(defaultSettings);
  });
});
