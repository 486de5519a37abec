import { pdfFile, zip } from '../../fixtures/knowledge/formats.js'

/**
 * Valid documents built in memory, big enough to keep a parser busy for a while (the committed
 * fixtures are tiny). Same formats as test/fixtures/knowledge/generate.ts, scaled up.
 */

/** A PDF of `pages` pages of Helvetica lines, with a byte-exact cross-reference table. */
export function bigPdf(pages: number, linesPerPage = 40): Buffer {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>']
  const kids: string[] = []
  for (let p = 0; p < pages; p++) {
    const lines = Array.from({ length: linesPerPage }, (_, i) => `(Page ${p + 1} line ${i + 1}: the clinic accepts walk-in patients on weekdays.) '`)
    const content = `BT /F1 10 Tf 40 760 Td 14 TL\n${lines.join('\n')}\nET\n`
    objects.push(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`)
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`)
    kids.push(`${objects.length} 0 R`)
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`
  return pdfFile(objects)
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'

/** A DOCX whose body is `paragraphs` copies of one paragraph: small zipped, big once inflated. */
export function repetitiveDocx(paragraphs: number, text = 'Appointments can be cancelled free of charge up to 24 hours before.'): Buffer {
  const p = Buffer.from(`<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`)
  const body = Buffer.concat([
    Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`),
    Buffer.alloc(p.length * paragraphs).fill(p),
    Buffer.from('</w:body></w:document>'),
  ])
  return zip([
    [
      '[Content_Types].xml',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    ],
    [
      '_rels/.rels',
      Buffer.from(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
    ],
    ['word/document.xml', body],
  ])
}
