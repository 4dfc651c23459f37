import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderPage } from '../../test-render';
import { RemoteAddPage } from './upcoming-page';

describe('upcoming public page', () => {
  it('says what /remote-add will do', async () => {
    renderPage('/remote-add', '/remote-add', <RemoteAddPage />);
    expect(await screen.findByText('Remote enrolment')).toBeTruthy();
    expect(screen.getByText(/registration token/)).toBeTruthy();
  });
});
