import { useRef, useState } from 'react';
import { UploadOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Typography } from 'antd';
import { useT } from '../../i18n/i18n';
import { readCertFile } from './cert-files';

interface PemInputProps {
  value?: string;
  onChange?: (value: string) => void;
  placeholder?: string;
  /** `accept` of the file chooser. */
  accept: string;
  testId: string;
  rows?: number;
}

/**
 * PEM pasted or a file chosen (a form control): a PEM file fills the text, a binary one
 * (DER, a DER .p7b) is kept as Base64, which the server accepts too.
 */
export function PemInput({ value, onChange, placeholder, accept, testId, rows = 6 }: PemInputProps) {
  const t = useT();
  const chooser = useRef<HTMLInputElement>(null);
  const [loaded, setLoaded] = useState<string | null>(null);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    const read = await readCertFile(file);
    setLoaded(
      read.binary
        ? t('cert:common.fileBinary', { name: file.name })
        : t('cert:common.fileLoaded', { name: file.name }),
    );
    onChange?.(read.content);
  };

  return (
    <Flex vertical gap={6}>
      <Input.TextArea
        value={value}
        onChange={(event) => {
          setLoaded(null);
          onChange?.(event.target.value);
        }}
        placeholder={placeholder}
        autoSize={{ minRows: rows, maxRows: 14 }}
        spellCheck={false}
        style={{ fontFamily: 'monospace', fontSize: 12 }}
        data-testid={testId}
      />
      <Flex gap={8} align="center" wrap>
        <Button
          icon={<UploadOutlined />}
          onClick={() => chooser.current?.click()}
          data-testid={`${testId}-choose`}
        >
          {t('cert:common.chooseFile')}
        </Button>
        {loaded && (
          <Typography.Text type="secondary" data-testid={`${testId}-loaded`}>
            {loaded}
          </Typography.Text>
        )}
        <input
          ref={chooser}
          type="file"
          accept={accept}
          style={{ display: 'none' }}
          data-testid={`${testId}-file`}
          onChange={(event) => {
            const input = event.currentTarget;
            void choose(input.files?.[0]).finally(() => {
              input.value = '';
            });
          }}
        />
      </Flex>
    </Flex>
  );
}
