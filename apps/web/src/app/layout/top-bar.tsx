import { useSyncExternalStore, type CSSProperties } from 'react';
import { FullscreenExitOutlined, FullscreenOutlined, LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { App, Avatar, Button, Dropdown, Flex, Tag, Tooltip, Typography, theme } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import screenfull from 'screenfull';
import { consoleAreaOf, consoleAreas } from '@ksp/contracts';
import type { UserInfo } from '../../api/session';
import { AppLogo } from '../../components/app-logo';
import { LanguageSwitch } from '../../components/language-switch';
import { useProductTitle, useSiteConfig } from '../../components/use-site-config';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { DomainSwitcher } from './domain-switcher';

function subscribeFullscreen(listener: () => void): () => void {
  if (!screenfull.isEnabled) return () => undefined;
  screenfull.on('change', listener);
  return () => screenfull.off('change', listener);
}

function FullscreenButton() {
  const t = useT();
  const { message } = App.useApp();
  const active = useSyncExternalStore(
    subscribeFullscreen,
    () => screenfull.isEnabled && screenfull.isFullscreen,
  );
  const toggle = () => {
    if (!screenfull.isEnabled) {
      void message.warning(t('layout:topbar.fullscreenUnsupported'));
      return;
    }
    void screenfull.toggle();
  };
  return (
    <Tooltip title={t('layout:topbar.fullscreen')}>
      <Button
        type="text"
        data-testid="fullscreen"
        aria-label={t('layout:topbar.fullscreen')}
        icon={active ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
        onClick={toggle}
      />
    </Tooltip>
  );
}

/** The look of a bar across the page (the top bar, the bar above the content). */
export const barStyle = (
  token: ReturnType<typeof theme.useToken>['token'],
  height: number,
): CSSProperties => ({
  height,
  padding: '0 12px',
  background: token.colorBgContainer,
  borderBottom: `1px solid ${token.colorBorderSecondary}`,
});

/** Logo, area title, domain switcher, full screen, version, language and the user menu. */
export function TopBar({
  user,
  compact,
  onLogout,
}: {
  user: UserInfo;
  compact: boolean;
  onLogout: () => void;
}) {
  const t = useT();
  const { token } = theme.useToken();
  const navigate = useNavigate();
  const location = useLocation();
  const site = useSiteConfig();
  const productTitle = useProductTitle();
  // The main console shows the product title (an administrator may change it); a sub-console its own.
  const area = consoleAreaOf(location.pathname);
  const title = area === 'console' ? productTitle : t(`layout:${consoleAreas[area].title}`);
  const version = site.data?.version;

  return (
    <Flex data-testid="topbar" align="center" justify="space-between" gap={8} style={barStyle(token, 56)}>
      <Flex align="center" gap={10} style={{ minWidth: 0, color: token.colorPrimary }}>
        <AppLogo src={site.data?.logo} alt={title} size={30} testId="topbar-logo" />
        <Typography.Text strong ellipsis style={{ fontSize: compact ? 15 : 17 }} data-testid="topbar-title">
          {title}
        </Typography.Text>
      </Flex>
      <Flex align="center" gap={compact ? 0 : 4} style={{ flexShrink: 0 }}>
        {user.has_domains && <DomainSwitcher current={user.domain} domains={user.domains} />}
        {!compact && <FullscreenButton />}
        {version && (
          <Tooltip title={t('layout:topbar.version')}>
            <Tag data-testid="version" style={{ marginInline: 4 }}>
              {version}
            </Tag>
          </Tooltip>
        )}
        <LanguageSwitch />
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              {
                key: 'profile',
                icon: <UserOutlined />,
                label: <span data-testid="profile-link">{t('layout:topbar.profile')}</span>,
              },
              { type: 'divider' },
              {
                key: 'logout',
                icon: <LogoutOutlined />,
                label: <span data-testid="logout">{t('layout:topbar.logout')}</span>,
              },
            ],
            onClick: ({ key }) => {
              if (key === 'profile') void navigate(paths.profile);
              else onLogout();
            },
          }}
        >
          <Button type="text" data-testid="user-menu" style={{ paddingInline: 6 }}>
            <Avatar size="small" icon={<UserOutlined />} style={{ background: token.colorPrimary }} />
            {!compact && <span>{user.name}</span>}
          </Button>
        </Dropdown>
      </Flex>
    </Flex>
  );
}
