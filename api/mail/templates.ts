import type { Lang } from '../http/errors.js'

export type MailKind = 'verify_email' | 'reset_password'

interface Rendered {
  subject: string
  text: string
}

const TEMPLATES: Record<MailKind, Record<Lang, (link: string, hours: number) => Rendered>> = {
  verify_email: {
    en: (link, hours) => ({
      subject: 'Confirm your Ozan email address',
      text: `Welcome to Ozan.\n\nConfirm your email address by opening this link within ${hours} hours:\n\n${link}\n\nIf you did not sign up, ignore this message.\n`,
    }),
    tr: (link, hours) => ({
      subject: 'Ozan e-posta adresinizi doğrulayın',
      text: `Ozan'a hoş geldiniz.\n\nE-posta adresinizi doğrulamak için bu bağlantıyı ${hours} saat içinde açın:\n\n${link}\n\nKaydolmadıysanız bu iletiyi yok sayın.\n`,
    }),
  },
  reset_password: {
    en: (link, hours) => ({
      subject: 'Reset your Ozan password',
      text: `Someone asked to reset the password of this Ozan account.\n\nOpen this link within ${hours} hour(s) to choose a new password:\n\n${link}\n\nIf it was not you, ignore this message; your password stays as it is.\n`,
    }),
    tr: (link, hours) => ({
      subject: 'Ozan parolanızı sıfırlayın',
      text: `Bu Ozan hesabının parolasını sıfırlama isteği alındı.\n\nYeni parola belirlemek için bu bağlantıyı ${hours} saat içinde açın:\n\n${link}\n\nBu isteği siz yapmadıysanız iletiyi yok sayın; parolanız değişmez.\n`,
    }),
  },
}

export function renderMail(kind: MailKind, lang: Lang, link: string, ttlS: number): Rendered {
  return TEMPLATES[kind][lang](link, Math.max(1, Math.round(ttlS / 3600)))
}
