import { describe, expect, it, vi } from 'vitest';
import { getToken, sessionKeys } from '../api/session';
import { handleParentMessage, listenToParent, parseParentMessage, type EmbeddingActions } from './embedding';

function actions(currentPath = '/iframe-init'): EmbeddingActions & Record<string, ReturnType<typeof vi.fn>> {
  return {
    currentPath: vi.fn(() => currentPath),
    navigate: vi.fn(),
    loadPage: vi.fn(),
    reload: vi.fn(),
    loadUserInfo: vi.fn(() => Promise.resolve()),
  };
}

describe('parent page messages', () => {
  it('accepts objects and JSON strings', () => {
    expect(parseParentMessage({ type: 'cleanToken' })).toEqual({ type: 'cleanToken' });
    expect(parseParentMessage('{"type":"refreshToken","token":"t"}')).toEqual({
      type: 'refreshToken',
      token: 't',
    });
  });

  it("logs 'Invalid JSON' for anything else", () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(parseParentMessage('{not json')).toBeNull();
    expect(parseParentMessage(42)).toBeNull();
    expect(parseParentMessage('"just a string"')).toBeNull();
    expect(parseParentMessage(null)).toBeNull();
    expect(error).toHaveBeenCalledTimes(4);
    expect(error).toHaveBeenCalledWith('Invalid JSON');
  });

  it('refreshToken on /iframe-init: stores the token, loads the user info, goes to /', async () => {
    const a = actions('/iframe-init');
    await handleParentMessage({ type: 'refreshToken', token: 'parent-token' }, a);
    expect(getToken()).toBe('parent-token');
    expect(Number(localStorage.getItem(sessionKeys.tokenTime))).toBeGreaterThan(0);
    expect(a.loadUserInfo).toHaveBeenCalledTimes(1);
    expect(a.navigate).toHaveBeenCalledWith('/');
    expect(a.reload).not.toHaveBeenCalled();
  });

  it('refreshToken elsewhere: reloads after loading the user info', async () => {
    const a = actions('/console/dashboard');
    await handleParentMessage(JSON.stringify({ type: 'refreshToken', token: 'parent-token' }), a);
    expect(a.loadUserInfo).toHaveBeenCalledTimes(1);
    expect(a.reload).toHaveBeenCalledTimes(1);
    expect(a.navigate).not.toHaveBeenCalled();
  });

  it('refreshToken without a token does nothing', async () => {
    const a = actions();
    await handleParentMessage({ type: 'refreshToken' }, a);
    expect(getToken()).toBeNull();
    expect(a.loadUserInfo).not.toHaveBeenCalled();
  });

  it('cleanToken clears storage and goes to /iframe-init', async () => {
    localStorage.setItem('token', 't');
    localStorage.setItem('anything', 'x');
    const a = actions('/console/dashboard');
    await handleParentMessage({ type: 'cleanToken' }, a);
    expect(localStorage.length).toBe(0);
    expect(a.loadPage).toHaveBeenCalledWith('/iframe-init');
  });

  it('ignores messages of other types and from other windows', async () => {
    const a = actions();
    await handleParentMessage({ source: 'react-devtools' }, a);
    expect(a.loadUserInfo).not.toHaveBeenCalled();

    const stop = listenToParent(a);
    window.dispatchEvent(new MessageEvent('message', { data: { type: 'cleanToken' }, source: null }));
    stop();
    expect(a.loadPage).not.toHaveBeenCalled();
  });

  it('listens to the parent window', async () => {
    const a = actions('/console/dashboard');
    const stop = listenToParent(a);
    window.dispatchEvent(
      new MessageEvent('message', { data: '{"type":"cleanToken"}', source: window.parent }),
    );
    stop();
    await vi.waitFor(() => expect(a.loadPage).toHaveBeenCalledWith('/iframe-init'));
  });
});
