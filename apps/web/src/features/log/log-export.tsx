import { useState } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { logExportFormats } from '@ksp/contracts';
import { saveBlob } from '../../components/save-blob';
import { useT } from '../../i18n/i18n';

export type ExportFormat = (typeof logExportFormats)[number];

/**
 * "Export CSV" and "Export JSON": the records the applied filters select, saved as the server
 * names the file (`fallbackName` when it names none). Server and client records share it.
 */
export function ExportButtons({
  exportFile,
  fallbackName,
  testId,
}: {
  exportFile: (format: ExportFormat) => Promise<{ filename?: string | null; blob: Blob }>;
  fallbackName: string;
  testId: string;
}) {
  const t = useT();
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const run = async (format: ExportFormat) => {
    setBusy(format);
    try {
      const file = await exportFile(format);
      saveBlob(file.filename ?? `${fallbackName}.${format}`, file.blob);
    } catch {
      // The client has shown why (the server's message, or a network failure).
    } finally {
      setBusy(null);
    }
  };
  return (
    <Space wrap>
      {logExportFormats.map((format) => (
        <Button
          key={format}
          icon={<DownloadOutlined />}
          loading={busy === format}
          disabled={busy !== null && busy !== format}
          onClick={() => void run(format)}
          data-testid={`${testId}-${format}`}
        >
          {t(`log:export.${format}`)}
        </Button>
      ))}
    </Space>
  );
}
