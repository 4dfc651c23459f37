import { defineMessages } from './define.js';

/** KADP client operations. Messages never carry data, a key or a signature. */
export const kadpOpsMessages = defineMessages({
  en: {
    'kadp.payload': 'payload: not a JSON object of an encrypt or decrypt request ({reason})',
  },
  zh: {
    'kadp.payload': 'payload：不是加密或解密请求的 JSON 对象（{reason}）',
  },
});
