import { ApartmentOutlined } from '@ant-design/icons';
import { App } from 'antd';
import { ApiError } from '../../api/api-error';
import { ChoiceMenu } from '../../components/choice-menu';
import { switchDomain } from '../../api/user';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';

export const DOMAIN_NAME_MAX = 10;

/** Domain names in the dropdown are cut to 10 characters with an ellipsis (docs/console.md#constants). */
export function shortDomainName(name: string, max = DOMAIN_NAME_MAX): string {
  const chars = [...name];
  return chars.length > max ? `${chars.slice(0, max).join('')}...` : name;
}

/** Switches the current domain: a new token and user info, then the console reloads at the root. */
export function DomainSwitcher({ current, domains }: { current: string; domains: readonly string[] }) {
  const t = useT();
  const { message } = App.useApp();

  const choose = async (domain: string) => {
    if (domain === current) return;
    try {
      await switchDomain(domain);
      window.location.replace(paths.root);
    } catch (error) {
      // The call is rejected with no message of its own; say what the server said.
      if (error instanceof ApiError && error.message) void message.error(error.message);
    }
  };

  return (
    <ChoiceMenu
      current={current}
      choices={domains.map((domain) => ({
        key: domain,
        label: <span title={domain}>{shortDomainName(domain)}</span>,
      }))}
      onChoose={(key) => void choose(key)}
      icon={<ApartmentOutlined />}
      ariaLabel={t('layout:topbar.domain')}
      testId="domain-switcher"
    >
      <span title={current}>{shortDomainName(current)}</span>
    </ChoiceMenu>
  );
}
