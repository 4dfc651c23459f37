import { useEffect, useState } from 'react';
import { MenuFoldOutlined, MenuUnfoldOutlined, SettingOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Flex, Layout, Tooltip, Typography, theme } from 'antd';
import { Navigate, useLocation, useMatches } from 'react-router';
import { isEmbedded } from '../../api/parent-window';
import { clearSession, useSignedIn } from '../../api/session';
import { loadUserInfo, logout, userKeys } from '../../api/user';
import { AppLogo } from '../../components/app-logo';
import { useProductTitle, useSiteConfig } from '../../components/use-site-config';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { useLayoutState } from '../layout-state';
import { affixViews } from '../menu-routes';
import { leafHandle } from '../route-handle';
import { useSettings } from '../settings';
import { BreadcrumbBar } from './breadcrumb-bar';
import { KeepAliveOutlet } from './keep-alive-outlet';
import { SettingsDrawer } from './settings-drawer';
import { SideMenu } from './side-menu';
import { TabsProvider, useTabs } from './tabs-context';
import { TagsView } from './tags-view';
import { barStyle, TopBar } from './top-bar';

/**
 * The open side menu's width: its longest labels fit on one line in English and Chinese
 * ("Access management", a group with its arrow, needs about 236 px; "Registration tokens",
 * one level in, about 231 px, in the DejaVu Sans a Linux browser falls back to).
 */
const SIDER_WIDTH = 248;
const SIDER_COLLAPSED_WIDTH = 64;
const TOPBAR_HEIGHT = 56;
const SIDER_BACKGROUND = '#001529';

function SidebarLogo({ collapsed }: { collapsed: boolean }) {
  const site = useSiteConfig();
  const title = useProductTitle();
  return (
    <Flex align="center" justify="center" gap={8} style={{ height: 50, color: '#fff', padding: '0 12px' }}>
      <AppLogo src={site.data?.logo} alt={title} size={26} />
      {!collapsed && (
        <Typography.Text strong ellipsis style={{ color: '#fff' }}>
          {title}
        </Typography.Text>
      )}
    </Flex>
  );
}

function Shell() {
  const t = useT();
  const { token } = theme.useToken();
  const signedIn = useSignedIn();
  const embedded = isEmbedded();
  const queryClient = useQueryClient();
  const { device, sidebarOpened, toggleSidebar, closeSidebar } = useLayoutState();
  const { settings } = useSettings();
  const { state, dispatch } = useTabs();
  const location = useLocation();
  const handle = leafHandle(useMatches());
  const [settingsOpen, setSettingsOpen] = useState(false);
  const menu = signedIn?.menu;
  const mobile = device === 'mobile';

  // The menu routes come from the stored user info; refresh it once per page load so the
  // domain list, e-mail and permissions shown are current (a changed menu applies on reload).
  useQuery({
    queryKey: userKeys.info,
    queryFn: async () => {
      await loadUserInfo();
      return true;
    },
    staleTime: Infinity,
  });

  // Affixed menu pages have their tab from the start.
  useEffect(() => {
    for (const item of affixViews(menu ?? [])) {
      dispatch({ type: 'addVisitedView', view: { path: item.path, name: item.name, meta: item.meta } });
    }
  }, [menu, dispatch]);

  // Each visited view gets a tab (and a cache entry); a new query updates its tab.
  useEffect(() => {
    if (!handle?.title && !handle?.name) return;
    const view = {
      path: location.pathname,
      fullPath: location.pathname + location.search,
      name: handle.name,
      meta: { title: handle.title, affix: handle.affix, noCache: handle.noCache },
    };
    dispatch({ type: 'addView', view });
    dispatch({ type: 'updateVisitedView', view });
  }, [location.pathname, location.search, handle, dispatch]);

  if (!signedIn) return <Navigate to={paths.login} replace />;

  const signOut = async () => {
    await logout().catch(() => undefined);
    clearSession();
    dispatch({ type: 'reset' });
    queryClient.clear();
    // A full load drops the routes built from this user's menu.
    window.location.assign(paths.login);
  };

  const sideMenu = (collapsed: boolean, onNavigate?: () => void) => (
    <>
      {(settings.sidebarLogo || embedded) && <SidebarLogo collapsed={collapsed} />}
      <SideMenu menu={signedIn.menu} collapsed={collapsed} onNavigate={onNavigate} />
    </>
  );

  const sticky = (top: number) =>
    settings.fixedHeader ? ({ position: 'sticky', top, zIndex: 20 } as const) : undefined;

  return (
    <Layout style={{ minHeight: '100vh' }}>
      {!embedded && (
        <div style={sticky(0)}>
          <TopBar user={signedIn.userinfo} compact={mobile} onLogout={() => void signOut()} />
        </div>
      )}
      <Layout hasSider>
        {mobile ? (
          <Drawer
            placement="left"
            open={sidebarOpened}
            onClose={closeSidebar}
            size={SIDER_WIDTH + 20}
            closable={false}
            styles={{ body: { padding: 0, background: SIDER_BACKGROUND } }}
          >
            {sideMenu(false, closeSidebar)}
          </Drawer>
        ) : (
          <Layout.Sider
            width={SIDER_WIDTH}
            collapsedWidth={SIDER_COLLAPSED_WIDTH}
            collapsed={!sidebarOpened}
            trigger={null}
            collapsible
            style={{ background: SIDER_BACKGROUND }}
          >
            <div style={{ position: 'sticky', top: settings.fixedHeader && !embedded ? TOPBAR_HEIGHT : 0 }}>
              {sideMenu(!sidebarOpened)}
            </div>
          </Layout.Sider>
        )}
        <Layout style={{ minWidth: 0 }}>
          <div style={sticky(embedded ? 0 : TOPBAR_HEIGHT)}>
            <Flex align="center" gap={8} style={barStyle(token, 44)}>
              <Button
                type="text"
                data-testid="sidebar-toggle"
                aria-label={t('layout:topbar.toggleMenu')}
                icon={sidebarOpened && !mobile ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
                onClick={toggleSidebar}
              />
              <BreadcrumbBar />
              {settings.showSettings && (
                // In the bar above the content, at its end: a button floating over the page
                // covered whatever lay beneath it (a page's own buttons, a card's corner).
                <Tooltip title={t('layout:settings.open')} placement="left">
                  <Button
                    type="text"
                    icon={<SettingOutlined />}
                    onClick={() => setSettingsOpen(true)}
                    data-testid="settings-toggle"
                    aria-label={t('layout:settings.open')}
                    style={{ marginInlineStart: 'auto', flexShrink: 0 }}
                  />
                </Tooltip>
              )}
            </Flex>
            {settings.tagsView && <TagsView />}
          </div>
          <Layout.Content style={{ padding: mobile ? 8 : 16, minWidth: 0 }}>
            <KeepAliveOutlet cachedViews={state.cachedViews} />
          </Layout.Content>
        </Layout>
      </Layout>
      <SettingsDrawer open={settingsOpen} onClose={() => setSettingsOpen(false)} />
    </Layout>
  );
}

/** The signed-in shell: top bar, side menu, breadcrumb, tags view and the kept-alive content. */
export function AppLayout() {
  return (
    <TabsProvider>
      <Shell />
    </TabsProvider>
  );
}
