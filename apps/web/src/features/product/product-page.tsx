import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Row, Space, Statistic, Tag, Typography } from 'antd';
import { ExportOutlined, ReloadOutlined, ShrinkOutlined } from '@ant-design/icons';
import type { ProductTile } from '@ksp/contracts';
import { fetchProductOverview, productKeys } from '../../api/product';
import { useSettings } from '../../app/settings';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import {
  forgetSubConsole,
  hostSubConsole,
  openSubConsoleTab,
  SUB_CONSOLE_START,
  subConsoleWindowName,
  type SubConsoleArea,
} from './sub-console-host';

const licenseColors: Record<ProductTile['license']['state'], string> = {
  licensed: 'green',
  community: 'default',
  expired: 'red',
};

function LicenseLine({ license }: { license: ProductTile['license'] }) {
  const t = useT();
  return (
    <Space wrap size={4} data-testid="product-license">
      <Tag color={licenseColors[license.state]}>{t(`product:license.${license.state}`)}</Tag>
      <Typography.Text type="secondary">
        {license.used === null
          ? t('product:license.total', { total: license.total })
          : t('product:license.used', { used: license.used, total: license.total })}
      </Typography.Text>
      {license.not_after && (
        <Typography.Text type="secondary">
          {t('product:license.until', { date: formatDateTime(license.not_after) })}
        </Typography.Text>
      )}
    </Space>
  );
}

function Tile({
  tile,
  onEmbed,
  onBlocked,
}: {
  tile: ProductTile;
  onEmbed: (area: SubConsoleArea) => void;
  onBlocked: () => void;
}) {
  const t = useT();
  const name = t(`product:names.${tile.product}`);
  return (
    <Card
      title={name}
      data-testid={`product-tile-${tile.product}`}
      aria-disabled={!tile.permitted}
      style={tile.permitted ? undefined : { opacity: 0.6 }}
      actions={[
        <Button
          key="tab"
          type="link"
          icon={<ExportOutlined />}
          disabled={!tile.permitted}
          data-testid={`product-open-tab-${tile.product}`}
          onClick={() => {
            if (!openSubConsoleTab(tile.area)) onBlocked();
          }}
        >
          {t('product:openTab')}
        </Button>,
        <Button
          key="embed"
          type="link"
          disabled={!tile.permitted}
          data-testid={`product-open-embedded-${tile.product}`}
          onClick={() => onEmbed(tile.area)}
        >
          {t('product:openEmbedded')}
        </Button>,
      ]}
    >
      {tile.permitted ? (
        <Row gutter={[8, 8]}>
          {tile.figures.map((f) => (
            <Col key={f.name} xs={12} sm={8}>
              <Statistic
                title={t(`product:figures.${f.name}`)}
                value={f.value}
                data-testid={`product-figure-${tile.product}-${f.name}`}
              />
            </Col>
          ))}
        </Row>
      ) : (
        <Typography.Text type="secondary">{t('product:noAccess')}</Typography.Text>
      )}
      <div style={{ marginTop: 12 }}>
        <LicenseLine license={tile.license} />
      </div>
    </Card>
  );
}

/** The embedded sub-console: an iframe whose token requests this page answers. */
function EmbeddedConsole({ tile, onClose }: { tile: ProductTile; onClose: () => void }) {
  const t = useT();
  const frame = useRef<HTMLIFrameElement>(null);
  const card = useRef<HTMLDivElement>(null);
  const { settings } = useSettings();
  useEffect(() => {
    const child = frame.current?.contentWindow;
    if (!child) return;
    hostSubConsole(child, tile.area);
    return () => forgetSubConsole(child);
  }, [tile.area]);
  // It opens below the tiles, under the fold of a laptop screen: bring it to the top of the
  // window, or the click seems to do nothing.
  useEffect(() => {
    card.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [tile.area]);
  return (
    <Card
      ref={card}
      data-testid="product-embedded"
      // A fixed header (top bar 56 px, breadcrumb bar 44 px, tags about 40 px) stays over the
      // window's top: stop below it.
      style={{
        marginTop: 16,
        scrollMarginTop: settings.fixedHeader ? 56 + 44 + (settings.tagsView ? 40 : 0) + 8 : 16,
      }}
      title={t('product:embeddedTitle', { name: t(`product:names.${tile.product}`) })}
      extra={
        <Button icon={<ShrinkOutlined />} onClick={onClose} data-testid="product-embedded-close">
          {t('product:close')}
        </Button>
      }
      styles={{ body: { padding: 0 } }}
    >
      <iframe
        ref={frame}
        // The name makes it a sub-console window: its own session, its token from this page.
        name={subConsoleWindowName(tile.area)}
        src={SUB_CONSOLE_START}
        title={t(`product:names.${tile.product}`)}
        data-testid="product-embedded-frame"
        style={{ width: '100%', height: '70vh', border: 0, display: 'block' }}
      />
    </Card>
  );
}

/** Products (docs/console.md#products-and-sub-consoles): the sub-consoles as tiles, each opened with a token scoped to it. */
export default function ProductPage() {
  const t = useT();
  const overview = useQuery({ queryKey: productKeys.overview, queryFn: fetchProductOverview });
  const [embedded, setEmbedded] = useState<SubConsoleArea | null>(null);
  const [blocked, setBlocked] = useState(false);
  const tiles = overview.data?.tiles ?? [];
  const open = tiles.find((tile) => tile.area === embedded && tile.permitted);
  return (
    <div data-testid="product-page">
      <Space style={{ width: '100%', justifyContent: 'space-between', marginBottom: 12 }} wrap>
        <Typography.Text type="secondary">{t('product:intro')}</Typography.Text>
        <Button
          icon={<ReloadOutlined />}
          onClick={() => void overview.refetch()}
          data-testid="product-refresh"
        >
          {t('product:refresh')}
        </Button>
      </Space>
      {blocked && (
        <Alert
          type="warning"
          showIcon
          closable
          onClose={() => setBlocked(false)}
          title={t('product:popupBlocked')}
          style={{ marginBottom: 12 }}
        />
      )}
      <Row gutter={[16, 16]}>
        {tiles.map((tile) => (
          <Col key={tile.product} xs={24} md={12} xl={8}>
            <Tile tile={tile} onEmbed={setEmbedded} onBlocked={() => setBlocked(true)} />
          </Col>
        ))}
      </Row>
      {open && <EmbeddedConsole key={open.area} tile={open} onClose={() => setEmbedded(null)} />}
    </div>
  );
}
