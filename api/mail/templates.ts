import type { Lang } from '../http/errors.js'

export type MailKind = 'verify_email' | 'reset_password' | 'invitation'

export interface MailVars {
  organization?: string
  inviter?: string
}

interface Rendered {
  subject: string
  text: string
}

const TEMPLATES: Record<MailKind, Record<Lang, (link: string, hours: number, v: MailVars) => Rendered>> = {
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
  invitation: {
    en: (link, hours, v) => ({
      subject: `You are invited to ${v.organization} on Ozan`,
      text: `${v.inviter} invited you to join ${v.organization} on Ozan.\n\nSign in (or sign up) with this email address, then open this link within ${Math.round(hours / 24)} days to accept:\n\n${link}\n`,
    }),
    tr: (link, hours, v) => ({
      subject: `Ozan'da ${v.organization} kuruluşuna davet edildiniz`,
      text: `${v.inviter} sizi Ozan'da ${v.organization} kuruluşuna katılmaya davet etti.\n\nBu e-posta adresiyle oturum açın (ya da kaydolun), ardından kabul etmek için bu bağlantıyı ${Math.round(hours / 24)} gün içinde açın:\n\n${link}\n`,
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

export function renderMail(kind: MailKind, lang: Lang, link: string, ttlS: number, vars: MailVars = {}): Rendered {
  return TEMPLATES[kind][lang](link, Math.max(1, Math.round(ttlS / 3600)), vars)
}
