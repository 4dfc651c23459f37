import { defineMessages } from './define.js';

/** The log page (server records). */
export const logMessages = defineMessages({
  en: {
    'log.notFound': 'No log record {id}',
    'log.sealed': 'The system is sealed: the audit chains cannot be checked until it is unsealed',
  },
  zh: {
    'log.notFound': '日志记录 {id} 不存在',
    'log.sealed': '系统处于封存状态：解封前无法校验审计链',
  },
});
