import { defineMessages } from './define.js';

/** The log page (server records). */
export const logMessages = defineMessages({
  en: {
    'log.notFound': 'No log record {id}',
  },
  zh: {
    'log.notFound': '日志记录 {id} 不存在',
  },
});
