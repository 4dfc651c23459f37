import { describe, expect, it } from 'vitest';
import { loginPath, redirectPath, safeRedirect, setupPath } from './paths';

describe('paths', () => {
  it('keeps the wanted path in the login redirect', () => {
    expect(loginPath('/console/dashboard?x=1')).toBe('/login?redirect=%2Fconsole%2Fdashboard%3Fx%3D1');
    expect(loginPath('/')).toBe('/login');
    expect(loginPath()).toBe('/login');
  });

  it('follows only same-site paths after login', () => {
    expect(safeRedirect('/console/setting/config?key=a')).toBe('/console/setting/config?key=a');
    expect(safeRedirect('https://evil.example')).toBe('/');
    expect(safeRedirect('//evil.example')).toBe('/');
    expect(safeRedirect('/\\evil.example')).toBe('/');
    expect(safeRedirect(null)).toBe('/');
  });

  it('builds the refresh path', () => {
    expect(redirectPath('/console/dashboard?a=1')).toBe('/redirect/console/dashboard?a=1');
  });

  it('sends an unready system to initialization, then activation', () => {
    expect(setupPath({ initialized: false, activated: false })).toBe('/system-active');
    expect(setupPath({ initialized: true, activated: false })).toBe('/user-active');
    expect(setupPath({ initialized: true, activated: true })).toBeNull();
  });
});
