import { act } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';
import { http, resetClient } from './api/client';
import { saveSignedIn, type SignedIn } from './api/session';
import { i18n } from './i18n/i18n';
import { fakeAdapter, signedInFixture } from './test-fixtures';

/** The test file's calls: answered by a fake adapter per test, the real one back after each. */
export function restoreAdapterAfterEach(): void {
  const original = http.defaults.adapter;
  afterEach(() => {
    http.defaults.adapter = original;
  });
}

/**
 * Each test of the file starts with an empty query cache, signed in as
 * `signedInFixture(userinfo)`; the real axios adapter comes back after it.
 */
export function signedInEachTest(userinfo?: Partial<SignedIn['userinfo']>): void {
  beforeEach(() => {
    resetClient();
    saveSignedIn(signedInFixture(userinfo));
  });
  restoreAdapterAfterEach();
}

/** Answers the console's calls with `reply` for the rest of the test; returns the requests it sees. */
export function answerWith(reply: Parameters<typeof fakeAdapter>[0]) {
  const fake = fakeAdapter(reply);
  http.defaults.adapter = fake.adapter;
  return fake.seen;
}

/** The tests of the enclosing `describe` run in `lang`; English is back after each. */
export function inLanguageEachTest(lang: 'en' | 'zh'): void {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage(lang));
  });
  afterEach(async () => {
    await act(() => i18n.changeLanguage('en'));
  });
}
