import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderPage } from '../../test-render';
import { RemoteAddPage, SignCertPage } from './upcoming-page';

describe('upcoming public pages', () => {
  it('says what /sign-cert will do and leads to the login', async () => {
    renderPage('/sign-cert', '/sign-cert', <SignCertPage />, { '/login': 'login page' });
    expect(await screen.findByText('Online certificate issuing')).toBeTruthy();
    expect(screen.getByText(/certificate signing request/)).toBeTruthy();
    expect(screen.getByRole('link').getAttribute('href')).toBe('/login');
  });

  it('says what /remote-add will do', async () => {
    renderPage('/remote-add', '/remote-add', <RemoteAddPage />);
    expect(await screen.findByText('Remote enrolment')).toBeTruthy();
    expect(screen.getByText(/registration token/)).toBeTruthy();
  });
});
