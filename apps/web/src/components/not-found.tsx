import type { ReactNode } from 'react';
import { Button, Card, Result, Skeleton } from 'antd';
import { useNavigate } from 'react-router';
import { isSessionExpired } from '../api/client';
import { paths } from '../config/paths';
import { useT } from '../i18n/i18n';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a route's id can name anything: a malformed one goes to the not-found page unasked. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The not-found page: the whole 404 route, or a detail page whose id is malformed or
 * unknown (with its own title and a way back instead of "back home").
 */
export function NotFound({ title, extra }: { title?: string; extra?: ReactNode }) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <Result
      status="404"
      title={title ?? t('errors:notFound.title')}
      subTitle={t('errors:notFound.text')}
      data-testid="not-found"
      extra={
        extra ?? (
          <Button type="primary" data-testid="back-home" onClick={() => void navigate(paths.root)}>
            {t('common:actions.backHome')}
          </Button>
        )
      }
    />
  );
}

/**
 * What a detail page shows instead of its record: a skeleton while the record loads (or while
 * the expired-session dialog is over the page), the not-found page when it could not be had
 * (unknown, deleted or refused: never the server's raw text); null once it is there. A form
 * must not show before its record: a save from the empty form would send blanks.
 */
export function recordPlaceholder(
  query: { isPending: boolean; error: unknown; data?: unknown },
  missing: { title: string; extra: ReactNode },
): ReactNode {
  if (query.isPending || (query.data === undefined && isSessionExpired(query.error))) {
    return (
      <Card data-testid="record-loading">
        <Skeleton active />
      </Card>
    );
  }
  if (query.data === undefined) return <NotFound title={missing.title} extra={missing.extra} />;
  return null;
}
