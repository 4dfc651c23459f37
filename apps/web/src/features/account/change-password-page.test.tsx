import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { saveSignedIn } from '../../api/session';
import { signedInFixture } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import ChangePasswordPage from './change-password-page';

describe('change password page', () => {
  it('says "you must" when the change is forced', async () => {
    saveSignedIn(signedInFixture({ must_change_password: true }));
    renderPage('/change-password', '/change-password', <ChangePasswordPage />);
    expect(await screen.findByText('You must change your password before going on.')).toBeTruthy();
  });

  it('only titles the page when it was opened by choice', async () => {
    saveSignedIn(signedInFixture({ must_change_password: false }));
    renderPage('/change-password', '/change-password', <ChangePasswordPage />);
    await screen.findByTestId('change-password-form');
    expect(screen.queryByTestId('password-must-change')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Change password' })).toBeTruthy();
  });
});
