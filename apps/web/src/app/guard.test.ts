import { describe, expect, it } from 'vitest';
import { decideNavigation, isMenuExempt, isPublicPath, type GuardInput } from './guard';

const base: GuardInput = { hasToken: false, menuLoaded: false, path: '/', fullPath: '/', embedded: false };
const decide = (input: Partial<GuardInput>) => decideNavigation({ ...base, ...input });

describe('navigation guard', () => {
  it('1. with a token, /login goes to /', () => {
    expect(decide({ hasToken: true, path: '/login', fullPath: '/login?redirect=%2Fx' })).toEqual({
      kind: 'redirect',
      to: '/',
    });
    expect(decide({ hasToken: true, menuLoaded: true, path: '/login/' })).toEqual({
      kind: 'redirect',
      to: '/',
    });
  });

  it('2. with a token and no menu routes, the menu is loaded (then the navigation retried)', () => {
    expect(decide({ hasToken: true, path: '/console/dashboard' })).toEqual({ kind: 'load-menu' });
    expect(decide({ hasToken: true, path: '/' })).toEqual({ kind: 'load-menu' });
    expect(decide({ hasToken: true, menuLoaded: true, path: '/console/dashboard' })).toEqual({
      kind: 'allow',
    });
  });

  it('public routes and /change-password need no menu', () => {
    for (const path of [
      '/system-active',
      '/user-active',
      '/auth-redirect',
      '/iframe-init',
      '/change-password',
    ]) {
      expect(decide({ hasToken: true, path })).toEqual({ kind: 'allow' });
    }
  });

  it('3. without a token a public route is allowed', () => {
    for (const path of [
      '/login',
      '/sign-cert',
      '/auth-redirect',
      '/remote-add',
      '/system-active',
      '/user-active',
      '/iframe-init',
    ]) {
      expect(decide({ path, fullPath: path })).toEqual({ kind: 'allow' });
    }
  });

  it('3. without a token a standalone page goes to /login keeping the wanted path', () => {
    expect(decide({ path: '/console/setting/config', fullPath: '/console/setting/config?key=MFA' })).toEqual({
      kind: 'redirect',
      to: '/login?redirect=%2Fconsole%2Fsetting%2Fconfig%3Fkey%3DMFA',
    });
    expect(decide({ path: '/', fullPath: '/' })).toEqual({ kind: 'redirect', to: '/login' });
    expect(decide({ path: '/change-password', fullPath: '/change-password' })).toEqual({
      kind: 'redirect',
      to: '/login?redirect=%2Fchange-password',
    });
  });

  it('3. without a token an embedded page goes to /iframe-init', () => {
    expect(decide({ embedded: true, path: '/console/dashboard', fullPath: '/console/dashboard' })).toEqual({
      kind: 'redirect',
      to: '/iframe-init',
    });
    expect(decide({ embedded: true, path: '/iframe-init' })).toEqual({ kind: 'allow' });
  });

  it('matches whole path segments only', () => {
    expect(isPublicPath('/login')).toBe(true);
    expect(isPublicPath('/login-history')).toBe(false);
    expect(isPublicPath('/auth-redirect/sso')).toBe(true);
    expect(isMenuExempt('/change-password')).toBe(true);
    expect(isPublicPath('/change-password')).toBe(false);
  });
});
