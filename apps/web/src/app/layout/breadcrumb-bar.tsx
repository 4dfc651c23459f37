import { Breadcrumb } from 'antd';
import { Link, useMatches } from 'react-router';
import { currentLanguage, useT } from '../../i18n/i18n';
import { leafHandle, translateTitle } from '../route-handle';

/** The current route's trail through the menu; every crumb but the last links to its page. */
export function BreadcrumbBar() {
  useT();
  const language = currentLanguage();
  const trail = leafHandle(useMatches())?.trail ?? [];
  return (
    <Breadcrumb
      data-testid="breadcrumb"
      items={trail.map((crumb, index) => {
        const title = translateTitle(crumb.title, language);
        const last = index === trail.length - 1;
        return {
          key: `${index}-${crumb.title}`,
          title: !last && crumb.path ? <Link to={crumb.path}>{title}</Link> : title,
        };
      })}
    />
  );
}
