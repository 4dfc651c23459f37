import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { ApiError } from '../../api/api-error';
import { switchDomain } from '../../api/user';
import { renderPage } from '../../test-render';
import { DomainSwitcher, shortDomainName } from './domain-switcher';

vi.mock('../../api/user', () => ({ switchDomain: vi.fn() }));

afterEach(() => {
  vi.unstubAllGlobals();
});

const domains = ['root', 'finance-department-east'];

async function openSwitcher() {
  const replace = vi.fn();
  vi.stubGlobal('location', { ...window.location, replace });
  renderPage('/p', '/p', createElement(DomainSwitcher, { current: 'root', domains }));
  // The button waits, disabled, for its menu to load.
  await waitFor(() => expect(screen.getByTestId('domain-switcher').hasAttribute('disabled')).toBe(false));
  fireEvent.click(screen.getByTestId('domain-switcher'));
  return replace;
}

describe('domain names', () => {
  it("are cut after 10 characters with '...'", () => {
    expect(shortDomainName('root')).toBe('root');
    expect(shortDomainName('abcdefghij')).toBe('abcdefghij');
    expect(shortDomainName('finance-department-east')).toBe('finance-de...');
    expect(shortDomainName('财务部华东区域分公司二部')).toBe('财务部华东区域分公司...');
  });
});

describe('domain switcher', () => {
  it('lists the domains cut short, each with its full name on hover', async () => {
    await openSwitcher();
    const item = await screen.findByText('finance-de...');
    expect(item.getAttribute('title')).toBe('finance-department-east');
  });

  it('switches to another domain and reloads the console at the root', async () => {
    vi.mocked(switchDomain).mockResolvedValue({} as never);
    const replace = await openSwitcher();
    fireEvent.click(await screen.findByText('finance-de...'));
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/'));
    expect(switchDomain).toHaveBeenCalledWith('finance-department-east');
  });

  it('does nothing for the current domain', async () => {
    vi.mocked(switchDomain).mockClear();
    const replace = await openSwitcher();
    const items = await screen.findAllByRole('menuitem');
    const current = items.find((item) => item.textContent === 'root');
    expect(current).toBeTruthy();
    fireEvent.click(current!);
    expect(switchDomain).not.toHaveBeenCalled();
    expect(replace).not.toHaveBeenCalled();
  });

  it("says the server's reason when the switch is refused, and stays", async () => {
    vi.mocked(switchDomain).mockRejectedValue(new ApiError(4031, 'Not a member of finance-department-east'));
    const replace = await openSwitcher();
    fireEvent.click(await screen.findByText('finance-de...'));
    expect(await screen.findByText('Not a member of finance-department-east')).toBeTruthy();
    expect(replace).not.toHaveBeenCalled();
  });
});
