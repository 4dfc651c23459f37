import { CloseOutlined } from '@ant-design/icons';
import { Dropdown, Flex, theme } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { paths, redirectPath } from '../../config/paths';
import { currentLanguage, useT } from '../../i18n/i18n';
import { translateTitle } from '../route-handle';
import { useTabs } from './tabs-context';
import { NO_NAME, type TabView } from './tabs-store';

/** The tabs of visited views: click to go back, close, or use the context menu. */
export function TagsView() {
  const t = useT();
  const language = currentLanguage();
  const { token } = theme.useToken();
  const { state, dispatch } = useTabs();
  const location = useLocation();
  const navigate = useNavigate();

  const title = (view: TabView) =>
    view.title === NO_NAME ? t('layout:tags.noName') : translateTitle(view.title, language);

  /** After closing the active tab: the last remaining one, or home. */
  const goToLast = (remaining: TabView[]) => {
    const last = remaining[remaining.length - 1];
    void navigate(last ? last.fullPath : paths.root);
  };

  const close = (view: TabView) => {
    dispatch({ type: 'delView', view });
    if (view.path === location.pathname) goToLast(state.visitedViews.filter((v) => v.path !== view.path));
  };

  const refresh = (view: TabView) => {
    dispatch({ type: 'delCachedView', view });
    void navigate(redirectPath(view.fullPath), { replace: true });
  };

  const closeOthers = (view: TabView) => {
    dispatch({ type: 'delOthersViews', view });
    if (view.path !== location.pathname) void navigate(view.fullPath);
  };

  const closeAll = () => {
    dispatch({ type: 'delAllViews' });
    const remaining = state.visitedViews.filter((v) => v.meta.affix);
    if (!remaining.some((v) => v.path === location.pathname)) goToLast(remaining);
  };

  return (
    <Flex
      data-testid="tags-view"
      gap={6}
      style={{
        padding: '6px 12px',
        overflowX: 'auto',
        whiteSpace: 'nowrap',
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      {state.visitedViews.map((view) => {
        const active = view.path === location.pathname;
        return (
          <Dropdown
            key={view.path}
            trigger={['contextMenu']}
            menu={{
              items: [
                { key: 'refresh', label: t('layout:tags.refresh') },
                ...(view.meta.affix ? [] : [{ key: 'close', label: t('layout:tags.close') }]),
                { key: 'others', label: t('layout:tags.closeOthers') },
                { key: 'all', label: t('layout:tags.closeAll') },
              ],
              onClick: ({ key }) => {
                if (key === 'refresh') refresh(view);
                else if (key === 'close') close(view);
                else if (key === 'others') closeOthers(view);
                else closeAll();
              },
            }}
          >
            <span
              data-testid="tag"
              data-path={view.path}
              data-active={active}
              role="link"
              tabIndex={0}
              onClick={() => void navigate(view.fullPath)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') void navigate(view.fullPath);
              }}
              style={{
                display: 'inline-flex',
                alignItems: 'center',
                gap: 4,
                padding: '2px 8px',
                fontSize: 12,
                cursor: 'pointer',
                borderRadius: token.borderRadiusSM,
                border: `1px solid ${active ? token.colorPrimary : token.colorBorder}`,
                background: active ? token.colorPrimary : token.colorBgContainer,
                color: active ? token.colorTextLightSolid : token.colorText,
              }}
            >
              {title(view)}
              {!view.meta.affix && (
                <CloseOutlined
                  aria-label={t('layout:tags.close')}
                  data-testid="tag-close"
                  style={{ fontSize: 10 }}
                  onClick={(event) => {
                    event.stopPropagation();
                    close(view);
                  }}
                />
              )}
            </span>
          </Dropdown>
        );
      })}
    </Flex>
  );
}
