//! Documents that are whole files, and the pages of WARC files.

use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};

use fpdb_html::Extract;

use super::error::{BadInput, ReadError};
use super::format::InputFormat;
use super::lines::Event;
use super::source::Source;
use crate::{check_id, Payload, Record, WarcItem, WarcPage, WarcReader};
use fpdb_parallel::map;

/// The one document of a whole file (`files`: its text; `html`: the text
/// of its page as `extract` says), its id the path; a file that is no
/// such document is a bad input named by its path.
pub(crate) fn whole_file(
    source: &Source,
    format: InputFormat,
    extract: Extract,
    counted: &AtomicU64,
) -> Result<Result<Record, BadInput>, ReadError> {
    let Source::File(path) = source else {
        return Err(ReadError::NeedsPath {
            format: format.name(),
        });
    };
    let bytes = source.read_whole(counted)?;
    let id = path.display().to_string();
    let record = if format == InputFormat::Html {
        html_record(id.clone(), &bytes, None, extract)
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => check_id(&id).map_err(|e| e.to_string()).map(|()| Record {
                id: id.clone(),
                payload: Payload::Text(text),
            }),
            Err(_) => Err("file is not valid UTF-8 text".to_string()),
        }
    };
    Ok(record.map_err(|what| BadInput { location: id, what }))
}

/// A page as a record of its extracted text, or what is wrong with it.
fn html_record(
    id: String,
    bytes: &[u8],
    content_type: Option<&str>,
    extract: Extract,
) -> Result<Record, String> {
    check_id(&id).map_err(|e| e.to_string())?;
    let page = fpdb_html::page_text(bytes, content_type, extract).map_err(|e| e.to_string())?;
    Ok(Record {
        id,
        payload: Payload::Text(page.text),
    })
}

/// What reading a WARC input needs to know.
pub(crate) struct WarcContext<'a> {
    pub name: &'a str,
    pub extract: Extract,
    /// Hand each page over as it comes.
    pub eager: bool,
    /// Records skipped as not HTML responses.
    pub skipped: &'a AtomicU64,
}

/// The pages of a WARC input, extracted a batch at a time on every core
/// (extraction is most of the work); eagerly, each page as it comes. A
/// malformed record is a bad input named `input@offset`.
pub(crate) fn read_warc<E: From<ReadError>>(
    context: &WarcContext<'_>,
    input: impl BufRead,
    handle: &mut impl FnMut(Event) -> Result<(), E>,
) -> Result<(), E> {
    let mut pages = PageBatch::default();
    for item in WarcReader::new(input) {
        match item {
            Ok(WarcItem::Page(page)) => {
                if pages.push(page) || context.eager {
                    pages.extract(context, handle)?;
                }
            }
            Ok(WarcItem::Skipped { .. }) => {
                context.skipped.fetch_add(1, Ordering::Relaxed);
            }
            Err(error) => {
                pages.extract(context, handle)?;
                handle(Event::Record(Err(BadInput {
                    location: context.name.to_string(),
                    what: error.to_string(),
                })))?;
            }
        }
    }
    pages.extract(context, handle)
}

/// WARC pages waiting to be extracted together: at most [`PAGE_BATCH`]
/// pages or [`PAGE_BATCH_BYTES`] of bodies.
#[derive(Default)]
struct PageBatch {
    pages: Vec<WarcPage>,
    bytes: usize,
}

/// Pages extracted together: enough for every core to have several.
const PAGE_BATCH: usize = 256;
const PAGE_BATCH_BYTES: usize = 16 << 20;

impl PageBatch {
    /// Adds a page; true when the batch is full.
    fn push(&mut self, page: WarcPage) -> bool {
        self.bytes += page.body.len();
        self.pages.push(page);
        self.pages.len() >= PAGE_BATCH || self.bytes >= PAGE_BATCH_BYTES
    }

    /// Extracts the batch's pages on every core and hands their records
    /// over in input order; a page that cannot be read is a bad input
    /// named `input@offset`.
    fn extract<E>(
        &mut self,
        context: &WarcContext<'_>,
        handle: &mut impl FnMut(Event) -> Result<(), E>,
    ) -> Result<(), E> {
        let pages = std::mem::take(&mut self.pages);
        self.bytes = 0;
        let records = map(&pages, |page| {
            html_record(
                page.uri.clone(),
                &page.body,
                page.content_type.as_deref(),
                context.extract,
            )
            .map_err(|what| BadInput {
                location: format!("{}@{}", context.name, page.offset),
                what,
            })
        });
        for record in records {
            handle(Event::Record(record))?;
        }
        Ok(())
    }
}
